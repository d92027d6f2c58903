import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore

extension NSPersistentStoreCoordinator {
    /// How an SQL store of this coordinator (SQLite or PostgreSQL) runs a fetch request, without
    /// running it: the SQL, its bound values and the database's query plan, or why the request
    /// runs in memory (see `FetchExplanation`). For the command-line tool's `explain`.
    ///
    /// The request is checked and planned as `NSManagedObjectContext.fetch(_:)` plans it (a
    /// `fetchBatchSize` on an object fetch selects IDs first, so the statement shown is that
    /// one); pending changes of a context are not considered.
    ///
    /// - Parameters:
    ///   - request: the fetch request.
    ///   - store: the store asked; **default:** the first SQL store (in the request's
    ///     `affectedStores`, else the coordinator's) whose configuration holds the entity.
    /// - Throws: the `NSError` a fetch would throw for a bad request, or `NSCoreDataError`
    ///   naming the entity when no SQL store holds it.
    package func explain<ResultType>(_ request: NSFetchRequest<ResultType>, in store: NSPersistentStore? = nil) throws
        -> FetchExplanation
    {
        var plan = try FetchPlanBuilder(model: managedObjectModel, schema: schema).plan(for: request)
        if request.resultType == .managedObjectResultType, request.fetchBatchSize > 0, case .rows = plan.output {
            plan.output = .keys
        }
        let entityName = schema.entity(plan.entityID).name
        let candidates = store.map { [$0] } ?? request.affectedStores ?? persistentStores
        let holding = candidates.first { candidate in
            guard (candidate as? RowBackedPersistentStore)?.rows is any SQLRowStore,
                let entities = managedObjectModel.entities(forConfigurationName: candidate.configurationName)
            else { return false }
            return entities.contains { $0.name == entityName }
        }
        guard let sql = (holding as? RowBackedPersistentStore)?.rows as? any SQLRowStore else {
            throw CoreDataError.make(
                code: NSCoreDataError, reason: "No SQL store of the coordinator holds the entity \(entityName)")
        }
        return try sql.explain(plan)
    }
}
