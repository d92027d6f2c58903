@testable import OpenPredicate
import Testing

/// An object that archives its predicate and sort descriptors through `PredicateArchiving`, as
/// a fetch request will.
final class FetchLikeHolder: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    let predicate: NSPredicate?
    let sortDescriptors: [NSSortDescriptor]?

    init(predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor]?) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    func encode(with coder: NSCoder) {
        PredicateArchiving.encode(predicate, forKey: "NSPredicate", to: coder)
        PredicateArchiving.encode(sortDescriptors, forKey: "NSSortDescriptors", to: coder)
    }

    init?(coder: NSCoder) {
        do {
            predicate = try PredicateArchiving.decodePredicate(forKey: "NSPredicate", from: coder)
            sortDescriptors = try PredicateArchiving.decodeSortDescriptors(forKey: "NSSortDescriptors", from: coder)
        } catch {
            return nil
        }
    }
}

/// `PredicateArchiving`: converting corelibs' predicates and sort descriptors, and archiving
/// them inside another object's archive.
@Suite("Archiving: helpers for other archives")
struct PredicateArchivingHelperTests {
    @Test func ourPredicatesAreArchivableAsTheyAre() throws {
        for format in ["a == 1", "a == 1 AND b == 2", "TRUEPREDICATE", "NOT a == 1"] {
            let predicate = try NSPredicate(validatingFormat: format)
            #expect(try PredicateArchiving.archivable(predicate) === predicate, "\(format)")
        }
    }

    @Test func corelibsPredicatesAreConverted() throws {
        let comparison = try NSPredicate(validatingFormat: "a == 1")
        let cases: [(Foundation.NSPredicate, String)] = [
            (Foundation.NSPredicate(value: true), "TRUEPREDICATE"),
            (Foundation.NSPredicate(value: false), "FALSEPREDICATE"),
            (
                Foundation.NSCompoundPredicate(andPredicateWithSubpredicates: [comparison, Foundation.NSPredicate(value: false)]),
                "a == 1 AND FALSEPREDICATE"
            ),
            (Foundation.NSCompoundPredicate(notPredicateWithSubpredicate: comparison), "NOT a == 1"),
        ]
        for (predicate, printed) in cases {
            let converted = try PredicateArchiving.archivable(predicate)
            #expect(converted !== predicate)
            #expect(converted.predicateFormat == printed)
            #expect(converted.isEqual(predicate), "\(printed)")
            let decoded = try archivingRoundTrip(converted, classes: [NSPredicate.self]) as? NSPredicate
            #expect(decoded?.isEqual(converted) == true, "\(printed)")
        }
    }

    @Test func blockPredicatesAreRefused() throws {
        let block = NSPredicate { _, _ in true }
        let refused: [NSPredicate] = [
            block,
            NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(format: "a == 1"), block]),
            PredicateTree.predicate(.not(.opaque(OpaquePredicate(block)))),
        ]
        for predicate in refused {
            let error = #expect(throws: NSError.self) { try PredicateArchiving.archivable(predicate) }
            #expect(error?.code == CocoaError.Code.coderInvalidValue.rawValue)
            #expect(error?.localizedDescription.contains("block predicates") == true)
        }
        // Our compound holding a block predicate fails with an error when archived directly.
        let compound = try #require(refused.last)
        #expect(compound is NSCompoundPredicate)
        #expect(throws: NSError.self) { try NSKeyedArchiver.archivedData(withRootObject: compound, requiringSecureCoding: true) }
    }

    @Test func predicatesAndSortDescriptorsRoundTripInsideAnotherArchive() throws {
        let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
            try NSPredicate(validatingFormat: "name BEGINSWITH $prefix"), NSPredicate(value: true),
        ])
        let descriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "age", ascending: false)]
        let holder = FetchLikeHolder(predicate: predicate, sortDescriptors: descriptors)
        let data = try NSKeyedArchiver.archivedData(withRootObject: holder, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [FetchLikeHolder.self], from: data) as? FetchLikeHolder)
        #expect(decoded.predicate?.isEqual(predicate) == true)
        #expect(decoded.predicate?.predicateFormat == #"name BEGINSWITH $prefix AND TRUEPREDICATE"#)
        #expect(decoded.sortDescriptors == descriptors)

        let empty = try NSKeyedArchiver.archivedData(
            withRootObject: FetchLikeHolder(predicate: nil, sortDescriptors: nil), requiringSecureCoding: true)
        let decodedEmpty = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [FetchLikeHolder.self], from: empty) as? FetchLikeHolder
        #expect(decodedEmpty != nil)
        #expect(decodedEmpty?.predicate == nil)
        #expect(decodedEmpty?.sortDescriptors == nil)
    }

    @Test func whatCannotBeArchivedIsAnErrorNotACrash() throws {
        let cases = [
            FetchLikeHolder(predicate: NSPredicate { _, _ in true }, sortDescriptors: nil),
            FetchLikeHolder(predicate: nil, sortDescriptors: [NSSortDescriptor(key: "a", ascending: true) { _, _ in .orderedSame }]),
        ]
        for holder in cases {
            let error = #expect(throws: NSError.self) {
                try NSKeyedArchiver.archivedData(withRootObject: holder, requiringSecureCoding: true)
            }
            #expect(error?.code == CocoaError.Code.coderInvalidValue.rawValue)
            #expect(error?.userInfo["NSArchiveKey"] != nil)
        }
    }

    @Test func wrongObjectsUnderTheKeysFailWithAnError() throws {
        let wrong: [ForgedObject] = [
            ForgedObject(FetchLikeHolder.self, [("NSPredicate", .object("a == 1"))]),
            ForgedObject(FetchLikeHolder.self, [("NSPredicate", .object(NSExpression(forKeyPath: "a")))]),
            ForgedObject(FetchLikeHolder.self, [("NSSortDescriptors", .object(NSSortDescriptor(key: "a", ascending: true)))]),
            ForgedObject(FetchLikeHolder.self, [("NSSortDescriptors", .object(["a"] as NSArray))]),
            ForgedObject(FetchLikeHolder.self, [("NSPredicate", .object(MalformedArchivingTests.comparison().with("NSLeftExpression", nil)))]),
        ]
        for forged in wrong {
            let (object, error) = try unarchiveForged(forged, classes: [FetchLikeHolder.self])
            #expect(object == nil)
            #expect((error as NSError?)?.code == CocoaError.Code.coderReadCorrupt.rawValue)
        }
        let (object, error) = try unarchiveForged(
            ForgedObject(FetchLikeHolder.self, [("NSPredicate", .object(MalformedArchivingTests.comparison()))]),
            classes: [FetchLikeHolder.self])
        #expect(error == nil)
        #expect((object as? FetchLikeHolder)?.predicate?.predicateFormat == "a == 1")
    }
}
