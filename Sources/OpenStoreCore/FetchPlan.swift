import Foundation
import OpenPredicate

/// A fetch request resolved against the schema once, by the coordinator, and handed to each
/// affected store. Key paths in the predicate and sort descriptors have been checked against the
/// schema; substitution variables are gone.
package struct FetchPlan {
    /// What a store returns for the plan.
    package enum Output {
        /// Whole rows (the context makes objects or faults of them).
        case rows
        /// Only the keys (object IDs, or faults without data).
        case keys
        /// The number of matching rows.
        case count
        /// One dictionary per result: named columns, optionally grouped.
        case dictionaries(DictionaryShape)
    }

    /// The entity fetched.
    package var entityID: Int
    /// The entities whose rows match: the entity alone, or with every sub-entity.
    package var entityIDs: Set<Int>
    /// The filter; nil matches every row.
    package var predicate: NSPredicate?
    /// The order, applied in array order.
    package var sortDescriptors: [NSSortDescriptor]
    /// At most this many results after the offset; 0 for no limit.
    package var limit: Int
    /// Results skipped before the first one returned.
    package var offset: Int
    package var output: Output

    package init(
        entityID: Int, entityIDs: Set<Int>, predicate: NSPredicate? = nil, sortDescriptors: [NSSortDescriptor] = [],
        limit: Int = 0, offset: Int = 0, output: Output = .rows
    ) {
        self.entityID = entityID
        self.entityIDs = entityIDs
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
        self.output = output
    }
}

/// The columns of a dictionary fetch.
package struct DictionaryShape {
    /// One output column: its name in the result dictionaries and how to compute it.
    package struct Column {
        package let name: String
        /// A key path from the fetched object (an attribute, a to-one relationship giving its
        /// key, or a path through to-one relationships), or an expression (aggregates such as
        /// `sum:(salary)` are computed over each group).
        package let expression: NSExpression
        /// The attribute kind the value is converted to (`expressionResultType`); nil keeps it.
        package let resultKind: AttributeKind?

        package init(name: String, expression: NSExpression, resultKind: AttributeKind?) {
            self.name = name
            self.expression = expression
            self.resultKind = resultKind
        }
    }

    package var columns: [Column]
    /// Group-by columns; empty without grouping.
    package var groupBy: [Column]
    /// Filters groups (evaluated against each result dictionary).
    package var having: NSPredicate?
    package var distinct: Bool

    package init(columns: [Column], groupBy: [Column] = [], having: NSPredicate? = nil, distinct: Bool = false) {
        self.columns = columns
        self.groupBy = groupBy
        self.having = having
        self.distinct = distinct
    }
}

/// What a store returns for a plan.
package enum FetchOutput {
    case rows([RowSnapshot])
    case keys([ObjectKey])
    case count(Int)
    /// Dictionary results, by column (`DictionaryRows`).
    case dictionaries(DictionaryRows)
}

/// The store side of the coordinator: a back end that keeps rows and runs plans.
///
/// Rows a store returns from `execute(_:)`, `row(for:)` and `rows(for:)` may leave to-many slots
/// `.null`: their members were not loaded (a loaded to-many slot is always `.objects`), and
/// `members(of:slot:)` reads them when they are needed.
package protocol RowStore: AnyObject {
    /// The schema the store was opened with.
    var schema: StoreSchema { get }
    /// Runs a plan.
    func execute(_ plan: FetchPlan) throws -> FetchOutput
    /// Runs a plan whose output is `.rows` into blocks of rows (see `RowBlock`); nil when the
    /// store does not, and `execute(_:)` is to be used. The default is nil.
    func rowBlocks(_ plan: FetchPlan) throws -> [RowBlock]?
    /// Runs a plan whose output is `.keys`, handing each row's key to `body` as it is read, with
    /// no array of keys first; false when the store does not, and `execute(_:)` is to be used.
    /// The default is false.
    func forEachKey(_ plan: FetchPlan, _ body: (ObjectKey) -> Void) throws -> Bool
    /// Runs a plan whose output is `.dictionaries`, straight into `NSDictionary` results (see
    /// `DictionaryResultBuilder`), relationships given as `objectID` names their rows. The
    /// default runs `execute(_:)` and converts its `DictionaryRows`.
    func dictionaryResults(_ plan: FetchPlan, objectID: @escaping (ObjectKey) -> AnyObject) throws -> [NSDictionary]
    /// The current row of an object, for faults and relationship traversal; nil if it does not
    /// exist (any more).
    func row(for key: ObjectKey) throws -> RowSnapshot?
    /// The current rows of several objects in one call (for batched faulting and prefetching),
    /// in the order of `keys`; keys whose row does not exist are left out.
    func rows(for keys: [ObjectKey]) throws -> [RowSnapshot]
    /// Applies a save, all or nothing: new rows, changed rows, deleted keys. Refuses it with
    /// `SaveConflictError` when a changed or deleted row has another version than
    /// `changes.expectedVersions` says, or when it would break a uniqueness constraint
    /// (checked with `UniquenessCheck`).
    func apply(_ changes: SaveChanges) throws
    /// The first phase of a save that spans several stores: checks and writes `changes` as
    /// `apply(_:)` does, refusing them the same way, but leaves them invisible until the result
    /// is committed (or rolled back). A prepared store accepts no other save until then.
    func prepare(_ changes: SaveChanges) throws -> PreparedSave
    /// Runs a batch request's write in one transaction, with the saves' conflicts ignored (no
    /// expected versions). The default throws `BatchWriteUnsupportedError`.
    /// - Throws: `BatchWriteRefusedError` for a predicate or expression the store cannot compute.
    func execute(_ batch: BatchWrite) throws -> BatchWriteOutcome
    /// Reserves `count` new primary keys for rows of an entity's hierarchy.
    func newPrimaryKeys(forEntity entityID: Int, count: Int) throws -> [Int64]
    /// The members of the to-many relationship at `slot` of each owner's entity, by owner, in
    /// the relationship's order (owners without a row or without members are left out).
    func members(of owners: [ObjectKey], slot: Int) throws -> [ObjectKey: [ObjectKey]]
    /// Numbers that change whenever a row of an entity in `entityIDs` is inserted, changed or
    /// deleted, by anyone (nil when the store cannot tell): for caches of fetch results that
    /// must prove they are current. The default is nil.
    func changeStamp(entityIDs: Set<Int>) throws -> [Int64]?

    // MARK: Persistent history (see `History.swift`)

    /// The persistent-history transactions after `transactionNumber` (all when nil), oldest
    /// first, at most `limit` of them (nil for no limit), each with its changes. The default
    /// throws `HistoryUnavailableError`.
    func history(after transactionNumber: Int64?, limit: Int?) throws -> [HistoryTransactionRecord]
    /// Deletes the transactions numbered below `transactionNumber`, with their changes. The
    /// default throws `HistoryUnavailableError`.
    func deleteHistory(before transactionNumber: Int64) throws
    /// The number of the newest transaction ever recorded, even when it has been deleted since
    /// (numbers are never reused: the next save gets a higher one); nil when none was. Tokens
    /// and remote-change checks compare it. The default throws `HistoryUnavailableError`.
    func lastHistoryTransactionNumber() throws -> Int64?
    /// Closes the store's connections to its database and returns once they are closed; later
    /// calls fail. The default does nothing (a store with nothing to close).
    func close() async
}

/// A save a store checked and wrote but has not made visible yet (`RowStore.prepare(_:)`):
/// exactly one of `commit()` and `rollBack()` ends it.
package protocol PreparedSave: AnyObject {
    /// Makes the save visible. Throws as `apply(_:)` does when the final step fails.
    func commit() throws
    /// Drops the save: the store is as it was before `prepare(_:)`.
    func rollBack()
}

extension RowStore {
    /// The store cannot tell (see the requirement).
    package func changeStamp(entityIDs: Set<Int>) throws -> [Int64]? { nil }

    /// The store gives rows one array each (see the requirement).
    package func rowBlocks(_ plan: FetchPlan) throws -> [RowBlock]? { nil }

    /// The store gives keys in one array (see the requirement).
    package func forEachKey(_ plan: FetchPlan, _ body: (ObjectKey) -> Void) throws -> Bool { false }

    /// A store without batch writes (see the requirement).
    package func execute(_ batch: BatchWrite) throws -> BatchWriteOutcome {
        throw BatchWriteUnsupportedError()
    }

    /// Nothing to close (see the requirement).
    package func close() async {}

    /// Applies a save without optimistic locking (no expected versions).
    package func apply(inserted: [RowSnapshot], updated: [RowSnapshot], deleted: [ObjectKey]) throws {
        try apply(SaveChanges(inserted: inserted, updated: updated, deleted: deleted))
    }

    /// Members read from the owners' rows: for back ends whose rows always hold them.
    package func members(of owners: [ObjectKey], slot: Int) throws -> [ObjectKey: [ObjectKey]] {
        var members: [ObjectKey: [ObjectKey]] = [:]
        for row in try rows(for: owners) where slot < row.values.count {
            if case .objects(let keys) = row.values[slot], !keys.isEmpty { members[row.key] = keys }
        }
        return members
    }

    /// A store that keeps no history: refuses.
    package func history(after transactionNumber: Int64?, limit: Int?) throws -> [HistoryTransactionRecord] {
        throw HistoryUnavailableError()
    }

    /// A store that keeps no history: refuses.
    package func deleteHistory(before transactionNumber: Int64) throws {
        throw HistoryUnavailableError()
    }

    /// A store that keeps no history: refuses.
    package func lastHistoryTransactionNumber() throws -> Int64? {
        throw HistoryUnavailableError()
    }

    /// One `row(for:)` per key: a back end that can load many rows at once overrides this.
    package func rows(for keys: [ObjectKey]) throws -> [RowSnapshot] {
        try keys.compactMap { try row(for: $0) }
    }
}
