import OpenPredicate

extension NSFetchRequest {
    /// Runs the request in the context whose block is running: call it inside `perform(_:)` or
    /// `performAndWait(_:)`, as Apple requires.
    ///
    /// ```swift
    /// try context.performAndWait {
    ///     let employees = try NSFetchRequest<NSManagedObject>(entityName: "Employee").execute()
    /// }
    /// ```
    ///
    /// - Throws: `NSCoreDataError` outside a context's block; otherwise what `fetch(_:)` throws.
    /// See [execute()](https://developer.apple.com/documentation/coredata/nsfetchrequest/execute()).
    public func execute() throws -> [ResultType] {
        guard let context = NSManagedObjectContext.current else {
            throw CoreDataError.make(
                code: NSCoreDataError,
                reason: "NSFetchRequest.execute() must be called inside a managed object context's perform or "
                    + "performAndWait block")
        }
        return try context.fetch(self)
    }
}
