import CSQLite
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// One connection to a SQLite database file, with the settings Apple's store uses and a cache of
/// prepared statements.
///
/// ```swift
/// let connection = try SQLiteConnection(url: storeURL, mode: .readOnly)
/// let statement = try connection.statement("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?")
/// try statement.bind([.string("Book")])
/// while try statement.step() { print(statement.int64(at: 0)) }
/// ```
///
/// Opening checks that the file is a database (SQLite itself only notices on the first read), so
/// a file that is not one fails here, with an error naming it. A new store (`.create` on a file
/// that does not exist yet) is put in WAL journal mode, as Apple's Core Data does since iOS 7 /
/// macOS 10.9; an existing file keeps its journal mode.
///
/// A store at `/dev/null` (`isInMemory(_:)`) is a private in-memory database, new and empty on
/// every connection, as in Apple's store: its tests add SQLite stores at
/// `URL(fileURLWithPath: "/dev/null")` to get a fresh SQLite store that leaves no file.
///
/// Not thread-safe: one connection belongs to one store, which serializes its calls.
package final class SQLiteConnection {
    /// How a file is opened.
    package enum Mode: Sendable {
        /// Reads only; the file must exist. Never checkpoints or removes a `-wal` file.
        case readOnly
        /// Reads and writes; the file must exist.
        case readWrite
        /// Reads and writes; creates the file if it does not exist.
        case create
    }

    /// The database file.
    package let url: URL
    package let mode: Mode
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The SQL of the cached statements, oldest first.
    private var preparedOrder: [String] = []
    /// The statement asked for last and its SQL, found again without hashing the text: a save
    /// runs one insert of 256 rows (some 8 KB of SQL) after another, and hashing that text for
    /// each was about 7% of the save's instructions.
    private var lastStatement: (sql: String, statement: SQLiteStatement)?
    /// This connection's SQL trace, overriding the process-wide one (`SQLTrace.shared`) when
    /// set. **Default:** nil.
    package var trace: SQLTrace?

    /// The trace statements follow: this connection's, else the process-wide one.
    var activeTrace: SQLTrace { trace ?? SQLTrace.shared }

    /// Opens (or creates) the database at `url`.
    ///
    /// - Parameters:
    ///   - url: the store file.
    ///   - mode: read-only, read-write, or create.
    ///   - busyTimeout: how long a statement waits for another connection's lock before failing
    ///     with `SQLITE_BUSY`. **Default:** 5 seconds.
    /// - Throws: `NSPersistentStoreOpenError` (134080) naming the file when it is missing, not a
    ///   regular file (`SQLiteStoreFile.refuseSpecialFiles(at:)`), not a database, or cannot be
    ///   opened; `NSSQLiteError` (134180) when a setting fails.
    ///   - walWhenNew: whether a file this call creates is put in WAL mode. **Default:** true.
    package init(url: URL, mode: Mode, busyTimeout: TimeInterval = 5, walWhenNew: Bool = true) throws {
        let path = url.path
        let inMemory = Self.isInMemory(url)
        // Before SQLite opens it: reading a FIFO would wait forever.
        try SQLiteStoreFile.refuseSpecialFiles(at: url)
        let isNew = mode == .create && (inMemory || !FileManager.default.fileExists(atPath: path))
        var flags: Int32
        switch mode {
        case .readOnly: flags = inMemory ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY
        case .readWrite: flags = SQLITE_OPEN_READWRITE
        case .create: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        flags |= SQLITE_OPEN_NOMUTEX
        if inMemory { flags |= SQLITE_OPEN_MEMORY }
        var pointer: OpaquePointer?
        let result = sqlite3_open_v2(inMemory ? ":memory:" : path, &pointer, flags, nil)
        guard result == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_close_v2(pointer)
            throw SQLiteStoreError.open("Can't open the store file \(path): \(message)", path: path, resultCode: result)
        }
        self.url = url
        self.mode = mode
        self.handle = pointer
        sqlite3_extended_result_codes(pointer, 1)
        sqlite3_busy_timeout(pointer, Int32(clamping: Int((busyTimeout * 1000).rounded())))
        do {
            // The first read of the schema is where SQLite finds out the file is not a database.
            try execute("SELECT count(*) FROM sqlite_master")
        } catch let error as NSError {
            let code = error.userInfo["NSSQLiteErrorDomain"] as? Int
            let reason: String
            switch code.map({ Int32($0) }) {
            case let code? where code & 0xFF == SQLITE_NOTADB:
                reason = "The file \(path) is not a SQLite database"
            case 776?, 264?:
                // SQLITE_READONLY_ROLLBACK, SQLITE_READONLY_RECOVERY.
                reason =
                    "The store file \(path) was left by a writer that stopped in the middle of a transaction, and "
                    + "a read-only open can't roll it back: open it read-write once (\(error.localizedDescription))"
            default:
                reason = "Can't read the store file \(path): \(error.localizedDescription)"
            }
            throw SQLiteStoreError.open(reason, path: path, resultCode: code.map { Int32($0) })
        }
        if isNew && walWhenNew {
            do {
                try execute("PRAGMA journal_mode = WAL")
            } catch let error as NSError {
                throw SQLiteStoreError.open(
                    "Can't set up the new database \(path): \(error.localizedDescription)", path: path,
                    resultCode: (error.userInfo["NSSQLiteErrorDomain"] as? Int).map { Int32(truncatingIfNeeded: $0) })
            }
        }
        var registered = SQLiteFunctions.register(on: pointer)
        if registered == SQLITE_OK { registered = SQLiteAppleFunctions.register(on: pointer) }
        guard registered == SQLITE_OK else {
            throw SQLiteStoreError.sqlite(
                "Can't register the store's SQL functions: \(lastErrorMessage)", resultCode: registered, sql: nil, path: path)
        }
    }

    /// Whether `url` names an in-memory store: `/dev/null`, Apple's spelling for a SQLite store
    /// that keeps nothing on disk.
    package static func isInMemory(_ url: URL) -> Bool {
        url.isFileURL && url.standardizedFileURL.path == "/dev/null"
    }

    /// Whether this connection's database is in memory (the store is at `/dev/null`).
    package var isInMemoryDatabase: Bool { Self.isInMemory(url) }

    deinit {
        lastStatement = nil
        statements.removeAll()
        // `_v2` defers the close until every statement handed out is finalized.
        sqlite3_close_v2(handle)
    }

    // MARK: - Statements

    /// The prepared statement for `sql` from the cache (prepared on first use), reset and with
    /// its bindings cleared.
    ///
    /// One statement per SQL text: finish iterating a statement before asking for the same SQL
    /// again (the second request resets the first).
    ///
    /// The cache keeps the `statementCacheLimit` statements prepared last; an older one is
    /// dropped from it (a caller still holding it keeps it usable) and prepared again if asked
    /// for again, so that apps that build many different predicates do not grow it forever.
    package func statement(_ sql: String) throws -> SQLiteStatement {
        try statement(sql, clearingBindings: true)
    }

    /// `statement(_:)`; without `clearingBindings`, the statement keeps the values bound last
    /// (for a caller that binds every parameter: clearing a 256-row insert's 2,304 parameters
    /// cost more than its key lookup). `text` gives the SQL to prepare when the cache has no
    /// statement for `sql` (`statement(for:)`); **default:** `sql` itself.
    private func statement(_ sql: String, clearingBindings: Bool, text: (() -> String)? = nil) throws -> SQLiteStatement {
        // The same string (often the very same storage, compared without reading it) as last.
        if let last = lastStatement, last.sql == sql {
            last.statement.reset(clearingBindings: clearingBindings)
            return last.statement
        }
        if let cached = statements[sql] {
            cached.reset(clearingBindings: clearingBindings)
            lastStatement = (sql, cached)
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: text?() ?? sql)
        if statements.count >= Self.statementCacheLimit, !preparedOrder.isEmpty {
            let dropped = preparedOrder.removeFirst()
            statements[dropped] = nil
            if lastStatement?.sql == dropped { lastStatement = nil }
        }
        statements[sql] = statement
        preparedOrder.append(sql)
        lastStatement = (sql, statement)
        return statement
    }

    /// How many prepared statements the cache keeps.
    package static let statementCacheLimit = 256

    /// The statement for a compiled fetch (as `statement(_:)`, cached by `query.sql`): prepared
    /// from `query.sqlWithoutTieBreak` where SQLite's plan for that already returns rows of equal
    /// sort keys in primary-key order (`keepsRowidOrderOfTies(_:)`, asked when it is prepared),
    /// so that both give the same rows in the same order; from `query.sql` otherwise. Its `sql`
    /// is the text it runs.
    package func statement(for query: SQLQuery) throws -> SQLiteStatement {
        guard let untied = query.sqlWithoutTieBreak else { return try statement(query.sql) }
        return try statement(query.sql, clearingBindings: true) {
            // A plan SQLite cannot make is run (and refused) as written.
            (try? self.keepsRowidOrderOfTies(untied)) == true ? untied : query.sql
        }
    }

    /// Whether SQLite runs `sql`, a `SELECT … ORDER BY … LIMIT`, as one full scan of one table
    /// in rowid order into the sorter it uses with a limit, whose keys end in a sequence number
    /// (rows of equal sort keys stay in the order they were scanned), read from the statement's
    /// `EXPLAIN` program. Anything else it might do, an index, a seek, a reverse scan, a join, a
    /// subquery or another sorter, answers false.
    func keepsRowidOrderOfTies(_ sql: String) throws -> Bool {
        let explain = try SQLiteStatement(connection: self, sql: "EXPLAIN " + sql, traced: false)
        var tables: [Int64] = []
        var sorters: [Int64] = []
        var sequenced: Set<Int64> = []
        var moves: [(opcode: String, cursor: Int64)] = []
        while try explain.step() {
            let opcode = explain.string(at: 1) ?? ""
            let cursor = explain.int64(at: 2)
            switch opcode {
            case "OpenRead":
                // A table's cursor has its number of columns as P4; an index's, its key ("k(…)").
                guard !(explain.string(at: 5) ?? "k(").hasPrefix("k(") else { return false }
                tables.append(cursor)
            case "OpenEphemeral":
                if (explain.string(at: 5) ?? "").hasPrefix("k(") { sorters.append(cursor) }
            case "Sequence": sequenced.insert(cursor)
            case "Rewind", "Next", "Last", "Prev", "SeekGE", "SeekGT", "SeekLE", "SeekLT", "SeekRowid", "NotExists",
                "DeferredSeek", "SeekScan", "NullRow":
                moves.append((opcode, cursor))
            case "OpenAutoindex", "ReopenIdx", "OpenDup", "OpenPseudo", "SorterOpen", "VOpen", "VFilter": return false
            default: break
            }
        }
        guard tables.count == 1, let table = tables.first, sorters.count == 1, let sorter = sorters.first,
            sequenced.contains(sorter)
        else { return false }
        // The table's cursor moves by one `Rewind` and one `Next` alone (the sorter's by `Last`
        // where it is full, to drop its greatest row).
        return moves.filter { $0.cursor == table }.map(\.opcode).sorted() == ["Next", "Rewind"]
    }

    /// Resets every cached statement (ends reads left on a row, which hold a lock).
    package func resetCachedStatements() {
        for statement in statements.values { statement.reset() }
    }

    /// Whether a transaction is open, a read one included (a statement left on a row keeps one
    /// open, and with it the snapshot of the file it read).
    package var hasOpenTransaction: Bool { sqlite3_txn_state(handle, nil) != SQLITE_TXN_NONE }

    /// The number of statements in the cache.
    package var cachedStatementCount: Int { statements.count }

    /// Runs one or more statements that return no rows (DDL, pragmas), without caching them.
    package func execute(_ sql: String) throws {
        StoreStatementLog.current?.record(sql)
        let trace = activeTrace
        if trace.level > 0 { trace.statement(sql) }
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        if result != SQLITE_OK {
            let code = result & 0xFF
            let text =
                code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN
                ? lastErrorMessage : message.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(message)
            throw SQLiteStoreError.sqlite(text, resultCode: result, sql: sql, path: url.path)
        }
    }

    /// Runs a cached statement with `arguments` to its end (an `INSERT`, `UPDATE`, `DELETE`);
    /// the number of rows it changed.
    @discardableResult
    package func run(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int {
        let statement = try statement(sql)
        try statement.bind(arguments)
        try statement.run()
        return changes
    }

    /// `run(_:_:)` for an insert, its values bound straight from the rows (see
    /// `SQLSession.runInsert(_:_:)`).
    package func runInsert(_ sql: String, _ rows: SQLInsertRows) throws {
        // Every parameter bound below: the values bound last need no clearing first.
        let statement = try statement(sql, clearingBindings: false)
        if statement.parameterCount != rows.placeholderCount { statement.reset() }
        try statement.bind(rows)
        try statement.run()
    }

    /// SQLite's `EXPLAIN QUERY PLAN` for `sql` with `arguments` bound: the `detail` column of
    /// each row, indented two spaces per level of nesting (as the `sqlite3` shell draws its
    /// tree). The statement is prepared for this call only and never traced.
    ///
    /// - Throws: `NSSQLiteError` when SQLite refuses the statement.
    package func queryPlan(_ sql: String, arguments: [StoreValue]) throws -> [String] {
        let explain = try SQLiteStatement(connection: self, sql: "EXPLAIN QUERY PLAN " + sql, traced: false)
        try explain.bind(arguments)
        var depth: [Int64: Int] = [0: -1]
        var lines: [String] = []
        while try explain.step() {
            let level = (depth[explain.int64(at: 1)] ?? -1) + 1
            depth[explain.int64(at: 0)] = level
            lines.append(String(repeating: "  ", count: level) + (explain.string(at: 3) ?? ""))
        }
        return lines
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction begun with `BEGIN IMMEDIATE` (the write lock is taken at the
    /// start, so two writers wait for each other through the busy timeout instead of failing
    /// halfway); commits when `body` returns, rolls back when it throws.
    ///
    /// - Throws: what `body` throws, or `NSSQLiteError` when `BEGIN`/`COMMIT` fail (a failed
    ///   commit is rolled back). Nested transactions are refused.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        guard isAutocommit else {
            throw SQLStoreError.operation("A transaction is already open on \(url.path)", path: url.path)
        }
        try execute("BEGIN IMMEDIATE")
        let value: T
        do {
            value = try body()
            // A statement left on a row (a single-row read) would keep the commit from running.
            resetCachedStatements()
            try execute("COMMIT")
        } catch {
            resetCachedStatements()
            if !isAutocommit { try? execute("ROLLBACK") }
            throw error
        }
        return value
    }

    /// The number of rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// False inside a transaction.
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    // MARK: - Introspection

    /// The journal mode (`wal`, `delete`, …).
    package func journalMode() throws -> String {
        let statement = try statement("PRAGMA journal_mode")
        defer { statement.reset() }
        guard try statement.step() else { return "" }
        return statement.string(at: 0) ?? ""
    }

    /// True if the database has a table with this name.
    package func tableExists(_ name: String) throws -> Bool {
        let statement = try statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        defer { statement.reset() }
        try statement.bind([.string(name)])
        return try statement.step()
    }

    /// The column names of a table, in table order; empty if there is no such table.
    package func columnNames(of table: String) throws -> [String] {
        let statement = try statement("SELECT name FROM pragma_table_info(?)")
        try statement.bind([.string(table)])
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0) ?? "") }
        return names
    }

    /// The names of the database's tables and indexes (`type` is `table` or `index`), sorted.
    package func schemaObjectNames(type: String) throws -> [String] {
        let statement = try statement("SELECT name FROM sqlite_master WHERE type = ? ORDER BY name")
        try statement.bind([.string(type)])
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0) ?? "") }
        return names
    }

    /// The row count of a table (the name must come from a layout, never from a user).
    package func rowCount(table: String) throws -> Int {
        let statement = try statement("SELECT count(*) FROM \(table)")
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return Int(statement.int64(at: 0))
    }

    /// SQLite's message for the last error; for an I/O error, a full disk or a file that cannot
    /// be opened, followed by the system's reason (`disk I/O error (File too large)`), which
    /// says what happened where SQLite's message does not.
    var lastErrorMessage: String { Self.errorMessage(handle) }

    /// `lastErrorMessage` of a database handle.
    static func errorMessage(_ handle: OpaquePointer) -> String {
        let message = String(cString: sqlite3_errmsg(handle))
        let code = sqlite3_errcode(handle) & 0xFF
        guard code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN else { return message }
        let systemError = sqlite3_system_errno(handle)
        if systemError != 0, let reason = strerror(systemError) { return "\(message) (\(String(cString: reason)))" }
        switch sqlite3_extended_errcode(handle) {
        case 778: return "\(message) (a write to the file failed: a full disk, a file-size limit or a device error)"
        case 1034: return "\(message) (flushing the file to the disk failed)"
        case 4874: return "\(message) (growing the -shm file failed: a full disk or a file-size limit)"
        case 266: return "\(message) (a read from the file failed)"
        default: return message
        }
    }
}
