import OpenPredicate

extension NSManagedObject {
    /// The entity whose `managedObjectClassName` names this class, in the model of a live
    /// persistent store coordinator.
    ///
    /// ```swift
    /// let request = NSFetchRequest<Book>(entityName: Book.entity().name ?? "Book")
    /// ```
    ///
    /// The models of the coordinators still alive are searched newest coordinator first; in
    /// each, an entity whose class name is the class's module-qualified name
    /// (`"MyApp.Book"`) wins over one with its bare name (`"Book"`, as Xcode writes it with
    /// "Current Product Module"). When several models claim the class (tests that make a new
    /// container for each test load the same model file again), the newest coordinator's entity
    /// is returned.
    ///
    /// Stops the process with Apple's reason ("+[Book entity] Failed to find a unique match for
    /// an NSEntityDescription to a managed object subclass") when no live coordinator's model
    /// has such an entity.
    ///
    /// **Differences from Apple:** Apple logs a warning and cannot choose when several models
    /// claim the class; this returns the newest coordinator's entity.
    /// See [entity()](https://developer.apple.com/documentation/coredata/nsmanagedobject/entity()).
    ///
    /// - Returns: The class's entity.
    public class func entity() -> NSEntityDescription {
        ManagedClassRegistry.register(self)
        for model in LiveCoordinators.models() {
            if let entity = entity(in: model) { return entity }
        }
        AppleException.internalInconsistency(
            "+[\(ManagedClassRegistry.bareName(of: self)) entity] Failed to find a unique match for an NSEntityDescription to a managed object subclass"
        )
    }

    /// The values of the given keys, as `value(forKey:)` reads them, with `NSNull` for nil.
    ///
    /// ```swift
    /// book.dictionaryWithValues(forKeys: ["title", "pages"])  // ["title": "Lathe", "pages": 184]
    /// ```
    ///
    /// An unknown key stops the process with Apple's `NSUnknownKeyException` reason, as
    /// `value(forKey:)` does.
    /// See [dictionaryWithValues(forKeys:)](https://developer.apple.com/documentation/objectivec/nsobject/dictionarywithvalues(forkeys:)).
    ///
    /// - Parameter keys: Property names of the object's entity.
    /// - Returns: A dictionary from each key to its value (`NSNull` for nil).
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        var result: [String: Any] = [:]
        for key in keys { result[key] = value(forKey: key) ?? ValueSemantics.null }
        return result
    }
}
