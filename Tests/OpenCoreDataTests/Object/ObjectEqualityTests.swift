import Foundation
@testable import OpenCoreData
import OpenPredicate
import Testing

/// `isEqual(_:)` of objects (identity) and of IDs (same store, entity and key), whatever form
/// the argument comes in: sets and dictionaries pass an `NSObject`, callers may pass an optional,
/// an `AnyHashable` or something else entirely. The fast path reads a class instance out of the
/// `Any?` without a dynamic cast; every other form takes the cast and must agree.
@Suite struct ObjectEqualityTests {
    @Test func storedObjectReadsOnlyClassInstancesStoredAsThemselves() {
        let object = NSObject()
        #expect(ExactValue.storedObject(object) === object)
        #expect(ExactValue.storedObject(object as NSObject?) === object)
        #expect(ExactValue.storedObject(nil) == nil)
        #expect(ExactValue.storedObject(42) == nil)
        #expect(ExactValue.storedObject("a string longer than fifteen bytes") == nil)
        #expect(ExactValue.storedObject(AnyHashable(object)) == nil)
        // An optional inside an `Any` is an enum there, not a class: the general path takes it.
        let wrapped: Any = Optional(object) as Any
        #expect(ExactValue.storedObject(wrapped) == nil)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func objectsAreEqualOnlyToThemselves(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let ann = try ContextFixture.employee("Ann", in: fixture.context)
        let bob = try ContextFixture.employee("Bob", in: fixture.context)
        let annElsewhere = try ContextFixture.employee("Ann", in: fixture.freshContext())
        #expect(ann.isEqual(ann))
        #expect(ann.isEqual(ann as NSObject?))
        #expect(ann.isEqual(AnyHashable(ann)))
        #expect(ann.isEqual(Optional(ann) as Any))
        #expect(!ann.isEqual(bob))
        #expect(!ann.isEqual(annElsewhere))
        #expect(!ann.isEqual(nil))
        #expect(!ann.isEqual(NSNull()))
        #expect(!ann.isEqual("Ann"))
        #expect(!ann.isEqual(ann.objectID))
        #expect(Set([ann, bob, ann, annElsewhere]).count == 3)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func idsAreEqualByStoreEntityAndKey(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let ann = try ContextFixture.employee("Ann", in: fixture.context).objectID
        let bob = try ContextFixture.employee("Bob", in: fixture.context).objectID
        let annElsewhere = try ContextFixture.employee("Ann", in: fixture.freshContext()).objectID
        let annFromURI = try #require(fixture.coordinator.managedObjectID(forURIRepresentation: ann.uriRepresentation()))
        for same in [annElsewhere, annFromURI] {
            #expect(ann.isEqual(same))
            #expect(ann.isEqual(same as NSObject?))
            #expect(ann.isEqual(AnyHashable(same)))
            #expect(ann.isEqual(Optional(same) as Any))
            #expect(ann.hash == same.hash)
        }
        #expect(!ann.isEqual(bob))
        #expect(!ann.isEqual(nil))
        #expect(!ann.isEqual(NSNull()))
        #expect(!ann.isEqual(ann.uriRepresentation()))
        #expect(!ann.isEqual(try ContextFixture.employee("Ann", in: fixture.context)))
        #expect(Set([ann, bob, annElsewhere, annFromURI]).count == 2)
        let numbers = Dictionary([(ann, 1), (annElsewhere, 2), (bob, 3)], uniquingKeysWith: +)
        #expect(numbers.count == 2)
        #expect(numbers[annFromURI] == 3)
        // Temporary IDs: each new object's own.
        let new = fixture.insert("Employee", ["name": "Eve"])
        let other = fixture.insert("Employee", ["name": "Fay"])
        #expect(new.objectID.isTemporaryID)
        #expect(new.objectID.isEqual(new.objectID))
        #expect(!new.objectID.isEqual(other.objectID))
        #expect(Set([new.objectID, other.objectID, new.objectID, ann]).count == 3)
    }
}
