import CoreData
import Foundation
import TestSupport

// The model's classes as Xcode generates them ("Class Definition"), with the mechanical port:
// `@NSManaged` → `@Managed`. Managed objects are not `Sendable`: they stay inside the `perform`
// block of their context (or on the main actor, for the view context's), and what leaves a
// block is an `NSManagedObjectID` or one of the value types below.

/// A bank account: its entries add up to its balance.
final class Account: NSManagedObject {
    @nonobjc class func fetchRequest() -> NSFetchRequest<Account> {
        NSFetchRequest<Account>(entityName: "Account")
    }

    @Managed var id: UUID
    @Managed var owner: String
    @Managed var balance: Int64
    @Managed var entries: Set<Entry>
}

/// A deposit into an account.
final class Entry: NSManagedObject {
    @nonobjc class func fetchRequest() -> NSFetchRequest<Entry> {
        NSFetchRequest<Entry>(entityName: "Entry")
    }

    @Managed var amount: Int64
    @Managed var createdAt: Date
    @Managed var account: Account?
}

/// The ledger's model, built in code once per process and shared by every container (a model
/// is `Sendable`, and one instance per process is what Apple recommends).
enum Ledger {
    static let model: NSManagedObjectModel = {
        let account = entity("Account")
        let entry = entity("Entry")
        let entries = relationship("entries", to: entry, maxCount: 0, deleteRule: .cascadeDeleteRule)
        let owner = relationship("account", to: account, maxCount: 1)
        inverses(entries, owner)
        account.properties = [
            attribute("id", .UUIDAttributeType, optional: false), attribute("owner", .stringAttributeType, optional: false),
            attribute("balance", .integer64AttributeType, optional: false, default: 0), entries,
        ]
        entry.properties = [
            attribute("amount", .integer64AttributeType, optional: false),
            attribute("createdAt", .dateAttributeType, optional: false), owner,
        ]
        let model = NSManagedObjectModel()
        model.entities = [account, entry]
        return model
    }()
}

/// What a request handler returns about an account: values only, safe to send anywhere.
struct AccountSnapshot: Sendable, Hashable {
    let objectID: NSManagedObjectID
    let id: UUID
    let owner: String
    let balance: Int64
    let entryCount: Int
}

extension Account {
    /// The account's values, read on its context's queue.
    var snapshot: AccountSnapshot {
        AccountSnapshot(objectID: objectID, id: id, owner: owner, balance: balance, entryCount: entries.count)
    }
}

/// What a deposit returns: the new entry's ID, the balance it left, and how many attempts the
/// save took (more than one when another deposit to the account saved first).
struct Receipt: Sendable, Hashable {
    let entry: NSManagedObjectID
    let account: NSManagedObjectID
    let amount: Int64
    let balance: Int64
    let attempts: Int
}

/// The errors of the ledger's handlers.
enum LedgerError: Error, Equatable {
    case noSuchAccount
    case insufficientFunds(balance: Int64)
    case tooManyAttempts
}
