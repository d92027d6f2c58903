@testable import OpenPredicate
import Testing

/// Sort descriptors through `NSKeyedArchiver`/`NSKeyedUnarchiver`, alone and as an array nested
/// in another object's archive.
@Suite("Archiving: sort descriptors")
struct SortDescriptorArchivingTests {
    static let descriptors: [NSSortDescriptor] = [
        NSSortDescriptor(key: "name", ascending: true),
        NSSortDescriptor(key: "address.city", ascending: false),
        NSSortDescriptor(key: nil, ascending: true),
        NSSortDescriptor(key: "title", ascending: true, selector: "localizedStandardCompare:"),
        NSSortDescriptor(key: "title", ascending: false, selector: "caseInsensitiveCompare:"),
        NSSortDescriptor(key: "title", ascending: true, selector: "localizedCompare:"),
        NSSortDescriptor(key: "title", ascending: true, selector: "localizedCaseInsensitiveCompare:"),
        NSSortDescriptor(key: "name", ascending: true).reversedSortDescriptor as? NSSortDescriptor ?? NSSortDescriptor(key: "x", ascending: true),
    ]

    static let rows: [[String: Any]] = [
        ["name": "b", "title": "file10", "address": ["city": "Oslo"]],
        ["name": "A", "title": "File2", "address": ["city": "Bergen"]],
        ["title": "file1"],
        ["name": "a", "title": "Éa", "address": ["city": "Åre"]],
    ]

    @Test(arguments: descriptors)
    func roundTrip(descriptor: NSSortDescriptor) throws {
        let root = try archivingRoundTrip(descriptor, classes: [NSSortDescriptor.self]) as? NSSortDescriptor
        let nested = try nestedArchivingRoundTrip(ArchiveHolder(sortDescriptors: [descriptor, descriptor]))?.sortDescriptors
        #expect(nested?.count == 2)
        for decoded in [root, nested?.first, nested?.last] {
            let decoded = try #require(decoded)
            #expect(decoded is NSSortDescriptor)
            #expect(decoded.isEqual(descriptor))
            #expect(decoded.hash == descriptor.hash)
            #expect(decoded.key == descriptor.key)
            #expect(decoded.ascending == descriptor.ascending)
            #expect(decoded.selector == descriptor.selector)
            #expect(decoded.description == descriptor.description)
            let order = { (descriptor: NSSortDescriptor) in
                Self.rows.sorted(using: [descriptor]).map { $0["title"] as? String ?? "" }
            }
            #expect(order(decoded) == order(descriptor))
        }
    }

    @Test func comparatorDescriptorsCannotBeArchived() throws {
        let descriptor = NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame }
        let error = #expect(throws: NSError.self) {
            try NSKeyedArchiver.archivedData(withRootObject: descriptor, requiringSecureCoding: true)
        }
        #expect(error?.code == CocoaError.Code.coderInvalidValue.rawValue)
        #expect(error?.localizedDescription == "NSSortDescriptor using Blocks cannot be encoded.")
        #expect(throws: NSError.self) { try PredicateArchiving.archivable(descriptor) }
    }

    @Test func corelibsKeyPathDescriptorsAreRefusedBeforeArchiving() throws {
        struct Item {
            var name: String
            var shout: String { name.uppercased() }
        }
        let descriptor = Foundation.NSSortDescriptor(keyPath: \Item.name, ascending: true)
        let error = #expect(throws: NSError.self) { try PredicateArchiving.archivable(descriptor) }
        #expect(error?.localizedDescription.contains("init(keyPath:ascending:)") == true)
        // Ours, from a key path with a string form, archives as its key; one without cannot.
        let named = try PredicateArchiving.archivable(NSSortDescriptor(keyPath: \Item.name, ascending: false))
        #expect(named.key == "name" && !named.ascending)
        let unnamed = #expect(throws: NSError.self) {
            try PredicateArchiving.archivable(NSSortDescriptor(keyPath: \Item.shout, ascending: true))
        }
        #expect(unnamed?.localizedDescription.contains("no string form") == true)
        let archivable = try PredicateArchiving.archivable(NSSortDescriptor(key: "name", ascending: false))
        #expect(archivable.key == "name")
    }

    static let base = ForgedObject(NSSortDescriptor.self, [
        ("NSKey", .object("name")), ("NSAscending", .bool(false)), ("NSSelector", .object("caseInsensitiveCompare:")),
    ])

    static let malformed: [(label: String, forged: ForgedObject)] = [
        ("unsupported selector", base.with("NSSelector", .object("compareByMagic:"))),
        ("selector is a number", base.with("NSSelector", .object(1))),
        ("no selector", base.with("NSSelector", nil)),
        ("no direction", base.with("NSAscending", nil)),
        ("key is a number", base.with("NSKey", .object(3))),
        ("key is an array", base.with("NSKey", .object(["a"] as NSArray))),
    ]

    @Test func forgedBaseDecodes() throws {
        let (object, error) = try unarchiveForged(Self.base, classes: [NSSortDescriptor.self])
        #expect(error == nil)
        let expected = NSSortDescriptor(key: "name", ascending: false, selector: "caseInsensitiveCompare:")
        #expect((object as? NSSortDescriptor)?.isEqual(expected) == true)
        let withoutKey = try unarchiveForged(Self.base.with("NSKey", nil), classes: [NSSortDescriptor.self])
        #expect((withoutKey.object as? NSSortDescriptor)?.key == nil)
        #expect(withoutKey.error == nil)
    }

    @Test("malformed sort descriptors fail with an error", arguments: malformed)
    func malformedFail(label: String, forged: ForgedObject) throws {
        let (object, error) = try unarchiveForged(forged, classes: [NSSortDescriptor.self])
        #expect(object == nil, "\(label)")
        #expect((error as NSError?)?.code == CocoaError.Code.coderReadCorrupt.rawValue, "\(label)")
    }
}
