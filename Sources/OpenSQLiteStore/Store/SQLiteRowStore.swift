import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// The SQLite back end of the coordinator: a Core Data store file in Apple's layout, seen as a
/// `RowStore`.
///
/// ```swift
/// let store = try SQLiteRowStore.open(at: url, schema: schema, readOnly: false,
///                                     modelVersionHashes: model.entityVersionHashesByName)
/// let output = try store.execute(FetchPlan(entityID: carID, entityIDs: carFamily, output: .count))
/// ```
///
/// - **Fetches** of keys, rows and counts run as one `SELECT` from `SQLCompiler` (predicate, sorts,
///   limit and offset pushed down; rows read by column index from that statement, to-many
///   relationships with one more query each for all the rows selected); dictionary fetches,
///   grouped or not, as one `SELECT` read straight into the result dictionaries
///   (`SQLCompiler.compile(_:shape:)`). A plan the compiler does not compile yet (the reason
///   names the part) reads every row of the file into a temporary `InMemoryRowStore` and runs
///   there with the reference executor, so its answers are the in-memory store's by
///   construction. A plan with a part Apple's SQL store cannot run either (a block predicate, a
///   comparator sort, a custom `FUNCTION()`, two to-many steps in a key path) fails with
///   `NSPersistentStoreUnsupportedRequestTypeError` naming the part and why.
/// - **Rows by key** (`row(for:)`, `rows(for:)`) select by `Z_PK`, one query per table.
/// - **Saves** (`apply`) check uniqueness constraints, then delete, insert and update
///   (`SQLRowWriter`), guarded by `Z_OPT` (optimistic locking), `Z_PRIMARYKEY.Z_MAX` kept at least
///   the highest key used (see `SQLiteRowStore+Save`). A refused save leaves the file as it was.
/// - **Primary keys** are reserved as Apple does: `Z_MAX` of the hierarchy root is raised, and
///   committed, before the keys are handed out, so they are never handed out twice, even to
///   another coordinator.
/// - **Group commit.** Saves and key reservations queued together behind a busy store share one
///   `BEGIN IMMEDIATE` transaction, each in a savepoint of its own, and one `COMMIT`; none
///   returns before it (`withGroupLock(_:)`). Alone, each has its transaction, as in Apple's
///   store; under a server's load, one `fsync` serves many saves.
///
/// Entity numbers: keys and rows use the schema's entity IDs; the layout maps them to and from
/// the file's `Z_ENT` numbers (`Z_PRIMARYKEY`), which may differ.
///
/// A read-only store refuses `apply` and `newPrimaryKeys` with `NSPersistentStoreOperationError`
/// naming the file, before touching it.
///
/// - **Concurrent reads.** A file in WAL mode is read by a pool of read-only connections beside
///   the store's own (`SQLiteReaderPool`, up to `defaultReaderLimit` or
///   `NSPersistentStoreConnectionPoolMaxSizeKey` − 1): fetches, rows by key and to-many members
///   run side by side, and never wait for a save (each sees the file as the last `COMMIT` left
///   it). A file in another journal mode, and an in-memory store, read on the store's connection.
///
/// Thread safety: every call on the store's connection (saves, key reservations, and reads when
/// there are no readers) runs under one lock (the connection is not thread-safe), taken in the
/// order callers ask for it (`CombiningLock`); each reader is used by one call at a time.
package final class SQLiteRowStore: RowStore, @unchecked Sendable {
    // @unchecked Sendable: every use of the connection and of the store's state is under the
    // store's lock, except `readers`, set once while the store opens (before it is shared) and
    // thread-safe itself.

    package let file: SQLiteStoreFile
    package let isReadOnly: Bool
    /// Held by every call, and by a prepared save until it ends (see `prepare(_:)`). Callers are
    /// served in the order they came, the holder running the calls queued behind it (see
    /// `CombiningLock`).
    let lock = CombiningLock()
    /// Whether the saves of a group (see `apply(_:)`) have a transaction open, begun by the first
    /// of them to write.
    var groupTransactionOpen = false
    /// Whether a save of the open group wrote (a group may hold key reservations only).
    var groupHasSaves = false
    /// Test hook: the result code a save's `COMMIT` reports (after it really ran); see
    /// `SQLiteRowStore+Testing`.
    var injectedCommitResult: Int32?
    /// The file's persistent-history tables; nil when it has none (see `SQLiteHistory+Store`).
    var historyTables: AppleSQLHistoryTables?
    /// The connections fetches read with, beside `file.connection`; nil for a file not in WAL
    /// mode and for an in-memory store, whose fetches run on the store's connection under its
    /// lock. Set once when the store opens.
    private(set) var readers: SQLiteReaderPool?

    package var schema: StoreSchema { file.layout.schema }

    /// The SQL trace of the store's statements, on its connection and its readers; nil follows
    /// the process-wide one (`SQLTrace.shared`). Set it before the store is used from other
    /// threads. **Default:** the one `open` was given.
    package var trace: SQLTrace? {
        get { file.connection.trace }
        set {
            file.connection.trace = newValue
            readers?.trace = newValue
        }
    }

    /// The number of readers a store opens at most unless told (see `readers`): the machine's
    /// active cores, at least 2. More readers than cores only share the same cores (on 2 cores,
    /// 8 readers gave the server benchmark's list 1.4 times the p99 latency of 2).
    package static var defaultReaderLimit: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

    /// The store's UUID (`Z_METADATA.Z_UUID`, `NSStoreUUID`).
    package var storeUUID: String? { file.metadata.storeUUID }

    package init(file: SQLiteStoreFile, isReadOnly: Bool) {
        self.file = file
        self.isReadOnly = isReadOnly
    }

    deinit {
        // The readers close first: the last connection to a WAL file to close checkpoints it
        // into the file and removes it, and a reader, read-only, can't.
        readers = nil
    }

    /// Opens the store at `url`, creating it (with its folder) when there is no file yet, or
    /// when the file is an empty database left by a creation that was interrupted, and the
    /// store is not read-only (see `SQLiteStoreFile+Creation`).
    ///
    /// - Parameters:
    ///   - url: the `.sqlite` file.
    ///   - schema: the lowered model.
    ///   - readOnly: opens the file read-only; a missing file is then an error.
    ///   - modelVersionHashes: the model's `entityVersionHashesByName`, written into a new store
    ///     and compared with an existing one's.
    ///   - versionIdentifiers: the model's version identifiers, written into a new store.
    ///   - pragmas: SQLite pragmas set on the connection (`NSSQLitePragmasOption`);
    ///     `journal_mode` also chooses a new store's journal mode. **Default:** none.
    /// - Throws: `NSPersistentStoreOpenError` (also for a path that is not a regular file, and
    ///   for a file that cannot be written unless `readOnly`), `NSPersistentStoreInvalidTypeError`,
    ///   `NSPersistentStoreIncompatibleVersionHashError` or
    ///   `NSPersistentStoreIncompatibleSchemaError`, naming the file (see `SQLiteStoreFile`).
    ///   - tracksHistory: records persistent history (`NSPersistentHistoryTrackingKey`): the
    ///     history tables are created when the file lacks them (unless `readOnly`).
    ///     **Default:** false.
    ///   - checksVersionHashes: false opens a store whatever its version hashes
    ///     (`NSIgnorePersistentStoreVersioningOption`). **Default:** true.
    ///   - trace: the SQL trace of the store's statements once the file is open (a store given a
    ///     `Logger`: `SQLTrace.store(logger:showsValues:)`). **Default:** none (the process-wide
    ///     trace).
    ///   - readerLimit: the most connections fetches read with beside the store's own (see
    ///     `readers`); 0 runs them on the store's connection. **Default:**
    ///     `defaultReaderLimit`.
    package static func open(
        at url: URL, schema: StoreSchema, readOnly: Bool, modelVersionHashes: [String: Data],
        versionIdentifiers: [String] = [""], pragmas: [(name: String, value: String)] = [], tracksHistory: Bool = false,
        checksVersionHashes: Bool = true, trace: SQLTrace? = nil, readerLimit: Int = SQLiteRowStore.defaultReaderLimit
    ) throws -> SQLiteRowStore {
        let store = try openFile(
            at: url, schema: schema, readOnly: readOnly, modelVersionHashes: modelVersionHashes,
            versionIdentifiers: versionIdentifiers, pragmas: pragmas, checksVersionHashes: checksVersionHashes)
        let connection = store.file.connection
        connection.trace = trace
        store.historyTables =
            tracksHistory && !readOnly
            ? try AppleSQLHistoryTables.create(in: connection, schema: schema) : try AppleSQLHistoryTables.read(from: connection)
        if readerLimit > 0, !connection.isInMemoryDatabase, try connection.journalMode().lowercased() == "wal" {
            store.readers = SQLiteReaderPool(limit: readerLimit, trace: trace) {
                let reader = try SQLiteConnection(url: url, mode: .readOnly)
                // The store's connection took every pragma already (it would have thrown): one
                // that fails here writes (`user_version`, say), which a reader has no use for.
                for (name, value) in pragmas where name.lowercased() != "journal_mode" {
                    try? reader.execute("PRAGMA \(name) = \(value)")
                }
                return reader
            }
        }
        return store
    }

    private static func openFile(
        at url: URL, schema: StoreSchema, readOnly: Bool, modelVersionHashes: [String: Data],
        versionIdentifiers: [String], pragmas: [(name: String, value: String)], checksVersionHashes: Bool
    ) throws -> SQLiteRowStore {
        let path = url.path
        if SQLiteConnection.isInMemory(url) {
            // `/dev/null`: a new, empty in-memory database each time (read-only if asked).
            let file = try SQLiteStoreFile.create(
                at: url, schema: schema, versionHashes: modelVersionHashes, versionIdentifiers: versionIdentifiers,
                pragmas: pragmas.filter { $0.name.lowercased() != "journal_mode" })
            return SQLiteRowStore(file: file, isReadOnly: readOnly)
        }
        if !readOnly && !FileManager.default.fileExists(atPath: path) {
            let folder = url.deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw SQLiteStoreError.open(
                    "Can't create the folder of the store \(path): \(error.localizedDescription)", path: path)
            }
        }
        let file = try SQLiteStoreFile.openOrCreate(
            at: url, schema: schema, readOnly: readOnly, versionHashes: modelVersionHashes,
            versionIdentifiers: versionIdentifiers, pragmas: pragmas, checksVersionHashes: checksVersionHashes
        ).file
        return SQLiteRowStore(file: file, isReadOnly: readOnly)
    }

    // MARK: - RowStore

    package func apply(_ changes: SaveChanges) throws {
        guard !changes.isEmpty else { return }
        try refuseIfReadOnly("save changes")
        try withGroupLock { try write(changes, inSavepoint: true) }
    }

    package func newPrimaryKeys(forEntity entityID: Int, count: Int) throws -> [Int64] {
        guard schema.entities.indices.contains(entityID - 1) else {
            throw SQLStoreError.operation(
                "No entity numbered \(entityID) in the store's schema", path: file.connection.url.path)
        }
        guard count > 0 else { return [] }
        try refuseIfReadOnly("reserve primary keys")
        let root = file.layout.entityNumber(of: file.layout.table(of: entityID).rootID)
        return try withGroupLock {
            try inGroupSavepoint { try AppleSQLPrimaryKeys.reserve(count, forRoot: root, in: file.connection) }
        }
    }

    // MARK: - Helpers

    func refuseIfReadOnly(_ action: String) throws {
        guard isReadOnly else { return }
        let path = file.connection.url.path
        throw SQLStoreError.operation("Can't \(action): the store \(path) was opened read-only", path: path)
    }

    /// Runs `body` under the store's lock as a call of a group (saves and key reservations):
    /// the calls queued together share one transaction and one `COMMIT`, each in a savepoint of
    /// its own (`inGroupSavepoint(_:)`), and `body` returns once that `COMMIT` is done (see
    /// `CombiningLock.withLock(committing:_:)`).
    func withGroupLock<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock(committing: { [self] in try commitGroup() }, body)
    }

    /// Runs `body` under the store's lock, perhaps on the thread of the caller holding it.
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock(body)
    }
}

extension SQLiteRowStore: SQLFetchStore, PagingRowStore {
    /// The file's tables and columns.
    package var layout: AppleSQLLayout { file.layout }

    /// SQLite's.
    package var dialect: SQLDialect { .sqlite }

    /// Runs `body`, which only reads, with a reader of its own, or with the store's connection
    /// under its lock when the store has no readers (see `readers`).
    /// While it runs, no file of a value in Apple's external data layout is removed (a reader may
    /// see rows as they were before a save: `AppleExternalDataFolder.reading(_:)`).
    package func withSession<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if let readers {
            guard let folder = layout.externalData else { return try readers.withReader(body) }
            return try folder.reading { try readers.withReader(body) }
        }
        return try withLock { try body(file.connection) }
    }

    package func unsupportedFetchError(_ reason: String) -> Error {
        SQLiteStoreError.unsupportedFetch(reason, path: file.connection.url.path)
    }

    /// Runs a compiled plan in its one statement, read straight from SQLite's statement (see
    /// `SQLFetchStore.run(_:plan:)`).
    package func run(_ query: SQLQuery, plan: FetchPlan) throws -> FetchOutput {
        try withSession { connection in
            let statement = try connection.statement(for: query)
            defer { statement.reset() }
            try statement.bind(query.arguments)
            switch plan.output {
            case .count:
                return .count(try statement.step() ? Int(statement.int64(at: 0)) : 0)
            case .rows:
                var decoder = SQLRowDecoder(layout: layout, entity: plan.entityID, dialect: dialect)
                var rows: [RowSnapshot] = []
                var counter = FetchRowCounter()
                let watched = counter.isWatching
                while try statement.step() {
                    if watched { try counter.count() }
                    if let row = try decoder.decode(statement) { rows.append(row) }
                }
                try counter.finish()
                return .rows(rows)
            default:
                var keys: [ObjectKey] = []
                try readKeys(statement, plan: plan) { keys.append($0) }
                return .keys(keys)
            }
        }
    }

    /// Hands each row's key of a key fetch's statement to `body`, as it is read: what
    /// `SQLFetchStore` does through a session, written out here (through the session's
    /// closure, it cost 31 instructions a row of an ID fetch's 1,270: callgrind).
    private func readKeys(_ statement: SQLiteStatement, plan: FetchPlan, _ body: (ObjectKey) -> Void) throws {
        var reader = SQLKeyReader(layout: layout, entity: plan.entityID)
        var counter = FetchRowCounter()
        let watched = counter.isWatching
        while try statement.step() {
            if watched { try counter.count() }
            if let key = reader.key(of: statement) { body(key) }
        }
        try counter.finish()
    }

    /// `SQLFetchStore.forEachKey(_:_:)`, read straight from SQLite's statement.
    package func forEachKey(_ plan: FetchPlan, _ body: (ObjectKey) -> Void) throws -> Bool {
        guard case .keys = plan.output, case .compiled(let query) = SQLCompiler(layout: layout, dialect: dialect).compile(plan)
        else { return false }
        try withSession { connection in
            let statement = try connection.statement(for: query)
            defer { statement.reset() }
            try statement.bind(query.arguments)
            try readKeys(statement, plan: plan, body)
        }
        return true
    }

    /// Runs a plan whose output is `.rows` into blocks of rows (see `RowStore.rowBlocks(_:)`),
    /// read straight from SQLite's statement; nil when the plan does not compile to one
    /// statement (then `execute(_:)` answers it).
    package func rowBlocks(_ plan: FetchPlan) throws -> [RowBlock]? {
        guard case .rows = plan.output, case .compiled(let query) = SQLCompiler(layout: layout, dialect: dialect).compile(plan)
        else { return nil }
        return try withSession { connection in
            let statement = try connection.statement(for: query)
            defer { statement.reset() }
            try statement.bind(query.arguments)
            var decoder = SQLRowDecoder(layout: layout, entity: plan.entityID, dialect: dialect)
            var blocks: [RowBlock] = []
            // Rows go to the last block while it has room and their entity's width. Blocks grow
            // from 32 rows (or the limit) to `RowBlock.capacity`, so that a small result takes
            // a small block.
            var current: Unmanaged<RowBlock>?
            var rows = plan.limit > 0 ? min(plan.limit, 32) : 32
            var counter = FetchRowCounter()
            let watched = counter.isWatching
            while try statement.step() {
                if watched { try counter.count() }
                // The current block, unretained (`blocks` holds it): no reference taken per row.
                _ = try decoder.decode(statement) { width in
                    if let current, current._withUnsafeGuaranteedRef({ !$0.isFull && $0.width == width }) {
                        return current
                    }
                    if current != nil { rows = min(rows * 4, RowBlock.capacity) }
                    let block = RowBlock(width: width, rows: rows)
                    blocks.append(block)
                    current = .passUnretained(block)
                    return .passUnretained(block)
                }
            }
            try counter.finish()
            return blocks
        }
    }

    /// Runs a compiled dictionary fetch into `sink`, read straight from SQLite's statement (see
    /// `SQLFetchStore.runDictionaries(_:into:)`).
    package func runDictionaries(_ compiled: SQLDictionaryQuery, into sink: inout some DictionaryRowSink) throws {
        try withSession { connection in
            let statement = try connection.statement(compiled.query.sql)
            defer { statement.reset() }
            try statement.bind(compiled.query.arguments)
            let layout = layout
            let conversions = compiled.conversions
            var counter = FetchRowCounter()
            let watched = counter.isWatching
            while try statement.step() {
                if watched { try counter.count() }
                try compiled.read(statement, layout: layout, conversions: conversions, into: &sink)
            }
            try counter.finish()
        }
    }

    /// The statement as it runs (`SQLiteConnection.statement(for:)`), and SQLite's
    /// `EXPLAIN QUERY PLAN` for it.
    package func queryPlan(_ query: SQLQuery) throws -> (statement: SQLQuery, lines: [String]) {
        try withSession { connection in
            let run = SQLQuery(sql: try connection.statement(for: query).sql, arguments: query.arguments)
            return (run, try connection.queryPlan(run.sql, arguments: run.arguments))
        }
    }
}
