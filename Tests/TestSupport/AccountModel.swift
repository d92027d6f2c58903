import CoreData

/// The model of the several-servers tests, which `ServerWorker` processes and `MultiServerTests`
/// open one store with: `Account(name, balance, stamp)`, unique by name; `stamp` names the save
/// that wrote the account last.
public func accountModel() -> NSManagedObjectModel {
    let account = NSEntityDescription()
    account.name = "Account"
    account.properties = [
        attribute("name", .stringAttributeType), attribute("balance", .integer64AttributeType),
        attribute("stamp", .stringAttributeType),
    ]
    account.uniquenessConstraints = [["name"]]
    let model = NSManagedObjectModel()
    model.entities = [account]
    return model
}
