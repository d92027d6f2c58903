import OpenPredicate
import OpenStoreCore

/// The reference back end: every row in memory, plans run with compiled closures.
///
/// The store keeps one table per inheritance hierarchy (as Apple's SQLite store does), rows in
/// insertion order, and hands out primary keys per hierarchy root, increasing from 1 (Apple's
/// `Z_PRIMARYKEY.Z_MAX`). A fetch:
///
/// 1. takes the rows whose entity is in `plan.entityIDs` (abstract entities never have rows of
///    their own: inserting one is refused);
/// 2. keeps those the predicate matches, compiled once per fetch and evaluated against a
///    `RowView` of each row;
/// 3. orders them by the sort descriptors, in array order, with OpenPredicate's rules
///    (`compare:` and the string selectors, nil first when ascending); with no sort descriptors
///    the order is insertion order within the hierarchy;
/// 4. skips `offset` results, then keeps at most `limit` (0 for no limit);
/// 5. returns rows, keys, their number, or dictionaries (see `DictionaryFetch`).
///
/// ```swift
/// let store = InMemoryRowStore(schema: schema)
/// let keys = try store.newPrimaryKeys(forEntity: employeeID, count: 1)
/// try store.apply(inserted: [RowSnapshot(key: ObjectKey(entityID: employeeID, primaryKey: keys[0]),
///                                        version: 1, values: values)], updated: [], deleted: [])
/// let plan = FetchPlan(entityID: employeeID, entityIDs: [employeeID],
///                      predicate: NSPredicate(format: "salary > 10"), output: .count)
/// let output = try store.execute(plan)  // .count(1)
/// ```
///
/// Thread safety: every method may be called from any thread. State changes under a lock; a
/// fetch takes the tables under the lock (a copy-on-write copy) and runs without holding it, so
/// it sees the store as it was when it began and does not block saves (a save during a fetch
/// copies the tables it changes once).
///
/// Relationships: the store keeps each row's slots as given. A to-one slot holds `.object(key)`;
/// a to-many slot holds `.objects(keys)` (in order for an ordered one), and `.null` reads as
/// empty — the coordinator keeps both sides of a relationship, as the context does for objects.
///
/// **Differences from Apple:** Apple's in-memory store is an atomic store of whole objects; this
/// one keeps rows and runs the same fetch plans the SQLite store runs (so both can be held to
/// the same answers), and refuses a bad save (unknown keys, duplicate inserts, wrong value
/// counts or value types) before changing anything.
///
/// Saves are checked as the SQLite store checks them (same `SaveConflictError`s): rows rewritten
/// or deleted with an expected version that is not theirs (optimistic locking), and uniqueness
/// constraints (`UniquenessCheck`, each constraint's rows indexed once per save).
package final class InMemoryRowStore: RowStore, @unchecked Sendable {
    // @unchecked Sendable: every change to the tables is made under `lock`; a fetch reads a copy
    // taken under it.

    package let schema: StoreSchema
    let layouts: [EntityLayout]
    private let lock = NSLock()
    /// One table per hierarchy root, at the root's number minus one; other entries stay empty.
    var tables: [RowTable]
    /// Test hook: sort only through OpenPredicate's `sorted(using:)` when false (see `+Testing`).
    private var usesNativeSort = true
    /// Test hook: how many times each entry point ran (see `+Testing`).
    private var calls = CallCounts()
    /// Persistent history, oldest first (see `InMemoryRowStore+History`).
    var historyLog: [HistoryTransactionRecord] = []
    /// The numbers last given to a history transaction and change (never reused).
    var lastHistoryNumbers: (transaction: Int64, change: Int64) = (0, 0)

    package init(schema: StoreSchema) {
        self.schema = schema
        layouts = EntityLayout.layouts(for: schema)
        tables = Array(repeating: RowTable(), count: schema.entities.count)
    }

    // MARK: - RowStore

    package func execute(_ plan: FetchPlan) throws -> FetchOutput {
        let output = try withFetchSnapshot { graph, native in try RowFetch(graph: graph, plan: plan, usesNativeSort: native).run()
        }
        // The rows are in memory: they arrive all at once.
        if let progress = FetchProgress.current {
            switch output {
            case .rows(let rows): try progress.arrived(rows.count)
            case .keys(let keys): try progress.arrived(keys.count)
            case .dictionaries(let rows): try progress.arrived(rows.count)
            case .count: try progress.arrived(1)
            }
        }
        return output
    }

    /// Runs `body` on the tables as they are now (a copy-on-write copy, read without the lock)
    /// and the sort switch; counts as a fetch. The copy is let go of under the lock: a save that
    /// then finds the tables' storage no longer shared (and changes it in place) comes after
    /// the fetch's last read, as ThreadSanitizer can see (it does not see the reference counts
    /// that copy-on-write relies on).
    func withFetchSnapshot<T>(_ body: (RowGraph, Bool) throws -> T) rethrows -> T {
        let (graph, native) = withLock {
            calls.fetches += 1
            return (RowGraph(tables: tables, layouts: layouts), usesNativeSort)
        }
        defer { withLock { graph.letGoOfTables() } }
        return try body(graph, native)
    }

    package func row(for key: ObjectKey) throws -> RowSnapshot? {
        withLock {
            calls.rowLoads += 1
            return lockedRow(for: key)
        }
    }

    /// Every row asked for under one lock: one call however many keys.
    package func rows(for keys: [ObjectKey]) throws -> [RowSnapshot] {
        withLock {
            calls.rowBatches += 1
            return keys.compactMap(lockedRow)
        }
    }

    /// The row of a key; the caller holds the lock.
    private func lockedRow(for key: ObjectKey) -> RowSnapshot? {
        guard layouts.indices.contains(key.entityID - 1) else { return nil }
        guard let row = tables[layouts[key.entityID - 1].table].row(primaryKey: key.primaryKey),
            row.key.entityID == key.entityID
        else { return nil }
        return row
    }

    /// Applies a save, all or nothing: the rows are checked first (`SaveValidator`), then the
    /// uniqueness constraints (`UniquenessCheck`), then the expected versions; the first that
    /// fails refuses the whole save.
    package func apply(_ changes: SaveChanges) throws {
        let (changes, inserted) = try Self.makingInsertedRows(changes)
        try withLock {
            try check(changes, inserted: inserted)
            write(changes, inserted: inserted)
        }
    }

    /// `changes` with its inserted rows made now (the store keeps them), and those rows.
    private static func makingInsertedRows(_ changes: SaveChanges) throws -> (SaveChanges, [RowSnapshot]) {
        let inserted = try changes.inserted.rows()
        var made = changes
        made.inserted = InsertedRows(inserted)
        return (made, inserted)
    }

    /// Checks a save under the lock, which it then keeps until the prepared save is committed
    /// or rolled back, so that no other save can come between.
    package func prepare(_ changes: SaveChanges) throws -> PreparedSave {
        let (changes, inserted) = try Self.makingInsertedRows(changes)
        lock.lock()
        do {
            try check(changes, inserted: inserted)
        } catch {
            lock.unlock()
            throw error
        }
        return PreparedMemorySave(store: self, changes: changes, inserted: inserted)
    }

    /// A checked save waiting for its commit; the store's lock is held until it ends.
    private final class PreparedMemorySave: PreparedSave {
        private var store: InMemoryRowStore?
        private let changes: SaveChanges
        private let inserted: [RowSnapshot]

        init(store: InMemoryRowStore, changes: SaveChanges, inserted: [RowSnapshot]) {
            self.store = store
            self.changes = changes
            self.inserted = inserted
        }

        func commit() throws {
            guard let store else { return }
            self.store = nil
            store.write(changes, inserted: inserted)
            store.lock.unlock()
        }

        func rollBack() {
            guard let store else { return }
            self.store = nil
            store.lock.unlock()
        }

        deinit { rollBack() }
    }

    /// Refuses a save that breaks a rule, a uniqueness constraint or an expected version; the
    /// caller holds the lock.
    private func check(_ changes: SaveChanges, inserted: [RowSnapshot]) throws {
        let validator = SaveValidator(layouts: layouts, tables: tables)
        try validator.validate(changes, inserted: inserted)
        // Each constraint's rows are indexed once per save, on first use.
        var indexes: [[Int]: [UniqueValueKey: [RowSnapshot]]] = [:]
        let violations = try UniquenessCheck(schema: schema).violations(in: changes) { entityID, slots, values in
            let id = [entityID] + slots
            if indexes[id] == nil { indexes[id] = validator.uniqueIndex(of: entityID, slots: slots) }
            return UniqueValueKey(values).flatMap { indexes[id]?[$0] } ?? []
        }
        guard violations.isEmpty else { throw SaveConflictError(constraintConflicts: violations) }
        let conflicts = validator.versionConflicts(in: changes)
        guard conflicts.isEmpty else { throw SaveConflictError(versionConflicts: conflicts) }
    }

    /// Writes a checked save; the caller holds the lock.
    private func write(_ changes: SaveChanges, inserted: [RowSnapshot]) {
        for key in changes.deleted {
            tables[layouts[key.entityID - 1].table].remove(primaryKey: key.primaryKey)
        }
        for row in changes.updated {
            tables[layouts[row.key.entityID - 1].table].replace(row)
        }
        for row in inserted {
            tables[layouts[row.key.entityID - 1].table].insert(row)
        }
        for index in tables.indices { tables[index].compactIfSparse() }
        if let draft = changes.history { appendHistory(draft) }
    }

    /// Reserves `count` primary keys for rows of the hierarchy `entityID` belongs to: the next
    /// ones after the highest handed out or used, so keys are never reused, even after deletes.
    /// A `count` of 0 or less reserves nothing.
    package func newPrimaryKeys(forEntity entityID: Int, count: Int) throws -> [Int64] {
        try withLock {
            guard layouts.indices.contains(entityID - 1) else {
                throw InMemoryStoreError.operation("No entity numbered \(entityID) in the store's schema")
            }
            guard count > 0 else { return [] }
            let table = layouts[entityID - 1].table
            let first = tables[table].maxPrimaryKey + 1
            tables[table].maxPrimaryKey += Int64(count)
            return Array(first...tables[table].maxPrimaryKey)
        }
    }

    /// The sort switch, under the lock.
    var usesNativeSortSetting: Bool {
        get { withLock { usesNativeSort } }
        set { withLock { usesNativeSort = newValue } }
    }

    /// The call counters, under the lock.
    var callCountsSetting: CallCounts {
        get { withLock { calls } }
        set { withLock { calls = newValue } }
    }

    // MARK: - Locking

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
