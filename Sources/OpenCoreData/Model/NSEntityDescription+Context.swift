import OpenPredicate

extension NSEntityDescription {
    /// The entity with a name in the model of a context's coordinator, or nil.
    /// See [entity(forEntityName:in:)](https://developer.apple.com/documentation/coredata/nsentitydescription/entity(forentityname:in:)).
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }

    /// Creates an object of the named entity (of the class the entity names) and inserts it
    /// into a context.
    ///
    /// ```swift
    /// let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
    /// ```
    ///
    /// An entity the context's model does not have stops the process with Apple's reason
    /// ("+entityForName: could not locate an entity named '…' in this model.").
    /// See [insertNewObject(forEntityName:into:)](https://developer.apple.com/documentation/coredata/nsentitydescription/insertnewobject(forentityname:into:)).
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            AppleException.internalInconsistency(
                "+entityForName: could not locate an entity named '\(entityName)' in this model.")
        }
        return context.managedObjectClass(for: entity).init(entity: entity, insertInto: context)
    }
}
