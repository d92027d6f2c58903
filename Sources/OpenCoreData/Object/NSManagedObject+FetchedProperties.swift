import OpenPredicate
import OpenStoreCore

extension NSManagedObject {
    /// The value of a fetched property: the results of its fetch request, run in the object's
    /// context the first time the property is read and kept until the object is turned into a
    /// fault (`refresh(_:mergeChanges:)`, `refreshAllObjects()`, `rollback()`).
    ///
    /// The request's predicate may use `$FETCH_SOURCE` (this object) and `$FETCHED_PROPERTY`
    /// (the property's description: `$FETCHED_PROPERTY.userInfo.someKey`, `.name`, `.entity`,
    /// `.fetchRequest`). The value is an array in the request's order, as Apple's fetched
    /// properties are ordered arrays; an object without a context, or a property without a
    /// request, has an empty one.
    ///
    /// A request that cannot run (an unknown key path, another unbound variable) stops the
    /// process with the fetch error's reason, as Apple raises.
    func fetchedValue(_ property: NSFetchedPropertyDescription) -> [Any] {
        if let cached = fetchedValues[property.name] { return cached }
        guard let context, let request = property.fetchRequest else { return [] }
        let results: [Any]
        do {
            let copy = request.copyRequest()
            if let predicate = request.predicate {
                copy.predicate = try predicate.withSubstitutionVariables(
                    validating: ["FETCH_SOURCE": self, "FETCHED_PROPERTY": FetchedPropertyReference(property)])
            }
            results = try context.fetch(copy)
        } catch {
            AppleException.internalInconsistency(
                "The fetched property \(property.name) of \(objectID) could not be fetched: \(error.localizedDescription)")
        }
        fetchedValues[property.name] = results
        return results
    }
}

/// What `$FETCHED_PROPERTY` stands for inside a fetched property's predicate: the property's
/// description as key-value coding sees it (`userInfo`, `name`, `entity`, `fetchRequest`), so
/// that `$FETCHED_PROPERTY.userInfo.key` reads the model's user info.
final class FetchedPropertyReference: NSObject, KeyValueCodable {
    let property: NSFetchedPropertyDescription

    init(_ property: NSFetchedPropertyDescription) {
        self.property = property
    }

    /// `userInfo` (an `NSDictionary`, empty when there is none), `name`, `entity`,
    /// `fetchRequest`; nil for any other key.
    func value(forKey key: String) -> Any? {
        switch key {
        case "userInfo": return NSDictionary(dictionary: property.userInfo ?? [:])
        case "name": return property.name
        case "entity": return property.entity
        case "fetchRequest": return property.fetchRequest
        default: return nil
        }
    }

    override var description: String { "<fetched property \(property.name)>" }
}
