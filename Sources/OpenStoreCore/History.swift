import Foundation
import OpenPredicate

/// One change of a persistent-history transaction, as stores write and read it: which row, how
/// it changed, which slots an update wrote and what a delete preserved.
package struct HistoryChange: Sendable, Equatable {
    /// How the row changed, with Apple's raw values (`NSPersistentHistoryChangeType`, the
    /// `ZCHANGETYPE` column).
    package enum Kind: Int, Sendable {
        case insert = 0
        case update = 1
        case delete = 2
    }

    /// The change's number in its store (`ACHANGE.Z_PK`); 0 in a draft, before a store wrote it.
    package var changeID: Int64
    /// The row that changed.
    package var key: ObjectKey
    package var kind: Kind
    /// For an update, the slots of `key`'s entity the save wrote, ascending; empty for inserts
    /// and deletes. Nil when the store cannot tell (a bitmap wider than the entity).
    package var updatedSlots: [Int]?
    /// For a delete, the values the row had of the attributes marked
    /// `preservesValueInHistoryOnDeletion`, by slot; empty otherwise.
    package var tombstone: [Int: StoreValue]

    package init(
        changeID: Int64 = 0, key: ObjectKey, kind: Kind, updatedSlots: [Int]? = [], tombstone: [Int: StoreValue] = [:]
    ) {
        self.changeID = changeID
        self.key = key
        self.kind = kind
        self.updatedSlots = updatedSlots
        self.tombstone = tombstone
    }
}

/// The persistent-history transaction a save writes (`SaveChanges.history`): who saved, when, and
/// one change per row the save inserted, updated or deleted.
///
/// A store writes it in the save's own transaction, all or nothing with the rows, and gives it
/// the next transaction number (`HistoryTransactionRecord.number`).
package struct HistoryTransactionDraft: Sendable {
    /// `NSManagedObjectContext.transactionAuthor`.
    package var author: String?
    /// `NSManagedObjectContext.name`.
    package var contextName: String?
    package var bundleID: String?
    package var processID: String?
    package var timestamp: Date
    package var changes: [HistoryChange]

    package init(
        author: String? = nil, contextName: String? = nil, bundleID: String? = nil, processID: String? = nil,
        timestamp: Date = Date(), changes: [HistoryChange] = []
    ) {
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.timestamp = timestamp
        self.changes = changes
    }
}

/// A persistent-history transaction as a store keeps it: its number (increasing, never reused;
/// Apple's `ATRANSACTION.Z_PK`), the draft's facts and the changes with their numbers.
package struct HistoryTransactionRecord: Sendable {
    package var number: Int64
    package var author: String?
    package var contextName: String?
    package var bundleID: String?
    package var processID: String?
    package var timestamp: Date
    /// In change-number order.
    package var changes: [HistoryChange]

    package init(
        number: Int64, author: String?, contextName: String?, bundleID: String?, processID: String?, timestamp: Date,
        changes: [HistoryChange]
    ) {
        self.number = number
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.timestamp = timestamp
        self.changes = changes
    }

    /// The record of `draft` written as transaction `number`, its changes numbered from
    /// `firstChangeID`.
    package init(number: Int64, draft: HistoryTransactionDraft, firstChangeID: Int64) {
        var changes = draft.changes
        for index in changes.indices { changes[index].changeID = firstChangeID + Int64(index) }
        self.init(
            number: number, author: draft.author, contextName: draft.contextName, bundleID: draft.bundleID,
            processID: draft.processID, timestamp: draft.timestamp, changes: changes)
    }
}

/// A history call on a store that keeps no persistent history (the default of `RowStore`'s
/// history methods), or whose file has no history tables.
package struct HistoryUnavailableError: Error, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String = "This store keeps no persistent history") {
        self.message = message
    }

    package var description: String { message }
}

extension EntitySchema {
    /// The slots whose properties persistent history numbers, in Apple's order: every
    /// non-transient property of the entity (inherited ones included), sorted by name. Bit `n` of
    /// an update's `ZCOLUMNS` bitmap, and tombstone column `n`, follow this order.
    package var historySlots: [Int] {
        properties.indices.filter { !properties[$0].isTransient }.sorted { properties[$0].name < properties[$1].name }
    }

    /// The slots of the attributes marked `preservesValueInHistoryOnDeletion`, in history order
    /// (`historySlots`): tombstone column `n` holds the value of the `n`th.
    package var tombstoneSlots: [Int] {
        historySlots.filter { properties[$0].preservesValueInHistoryOnDeletion }
    }
}
