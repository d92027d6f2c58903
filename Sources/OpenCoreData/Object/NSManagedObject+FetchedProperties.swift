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
    /// process with the fetch error's reason, as Apple raises. A store that fails (a lost
    /// connection, a locked file) does not: the value is empty this time and is fetched again
    /// when next read, and the context's next save reports the failure, as for a fault
    /// (see `NSManagedObjectContext+Faults`).
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
            guard !Self.isRequestError(error) else {
                AppleException.internalInconsistency(
                    "The fetched property \(property.name) of \(objectID) could not be fetched: \(error.localizedDescription)")
            }
            context.recordFaultFailure(error, for: self)
            return []
        }
        fetchedValues[property.name] = results
        return results
    }

    /// Whether a fetch failed for its request (the request's own fault, which Apple raises for),
    /// rather than for its store: fetch request errors are `NSCoreDataError` or
    /// `NSPersistentStoreUnsupportedRequestTypeError` in Cocoa's domain. Anything else counts as
    /// the store's failure, which never stops the process.
    static func isRequestError(_ error: Error) -> Bool {
        let error = error as NSError
        guard error.domain == NSCocoaErrorDomain else { return false }
        return error.code == NSCoreDataError || error.code == NSPersistentStoreUnsupportedRequestTypeError
            || error.userInfo[FetchRequestError.culpritKey] != nil
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
