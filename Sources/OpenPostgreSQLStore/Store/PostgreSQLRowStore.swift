#if PostgreSQL
    import Logging
    import OpenInMemoryStore
    import OpenPredicate
    import OpenSQLStore
    import OpenStoreCore

    /// The PostgreSQL back end of the coordinator: Apple's layout in a schema of a PostgreSQL
    /// database (`PostgreSQLLayout`), shared by every coordinator, process and server that opens it.
    ///
    /// ```swift
    /// let store = try PostgreSQLRowStore.open(
    ///     url: URL(string: "postgres://app@db.local/shop?schema=catalog")!, schema: schema,
    ///     modelVersionHashes: model.entityVersionHashesByName)
    /// let output = try store.execute(FetchPlan(entityID: carID, entityIDs: carFamily, output: .count))
    /// ```
    ///
    /// - **Fetches** run as both SQL stores run them (`SQLFetchStore`), in PostgreSQL's dialect
    ///   (`SQLCompiler(layout:dialect:)`) to one statement; rows decode through the same
    ///   `SQLRowDecoder`. A plan with a part PostgreSQL cannot compute as the other stores do (the
    ///   reason names it: Foundation's string rules, localized sorts) reads the rows into an
    ///   `InMemoryRowStore` and runs there, so its answers are the in-memory store's; a part no SQL
    ///   store runs fails with `NSPersistentStoreUnsupportedRequestTypeError`, as on SQLite.
    /// - **Saves** run in one transaction through the SQL stores' `SQLRowWriter`: uniqueness
    ///   constraints checked first, rows guarded by `Z_OPT` (optimistic locking). A serialization
    ///   failure, a deadlock, or a unique index refusing a row another server inserted meanwhile
    ///   runs the whole save again (at most 5 times); the second run reports what the first could
    ///   not see (a `SaveConflictError`). A connection lost during `COMMIT` is reported as a save
    ///   whose outcome is unknown, never committed twice.
    /// - **Primary keys** come from `Z_PRIMARYKEY.Z_MAX` in blocks of `keyBlockSize`, each reserved
    ///   in a statement of its own (a short transaction), so that inserting servers do not wait for
    ///   each other; unused keys of a block are never handed out again (gaps, as Apple leaves).
    /// - **Opening** takes an advisory lock for the schema while it creates or checks the tables,
    ///   so that servers starting together create them once; the version-hash check is the SQLite
    ///   store's.
    ///
    /// What runs where: every call blocks the calling thread until the server answers; the I/O, and
    /// the decoding of result rows as they arrive, run on postgres-nio's event loops (see
    /// `PostgreSQLConnectionPool`, `PostgreSQLConnection.query`). Do not call it on an event loop.
    package final class PostgreSQLRowStore: RowStore, @unchecked Sendable {
        // @unchecked Sendable: its layout, metadata and URL are set in `init` and only read; the
        // reserved keys are behind `keyLock`; the pool and the statement cache are thread-safe
        // themselves.

        package let database: PostgreSQLConnectionPool
        /// Where the store is (its schema and server).
        package let url: PostgreSQLStoreURL
        package let layout: AppleSQLLayout
        /// The history tables, when the store was opened with history tracking.
        let historyTables: AppleSQLHistoryTables?
        package private(set) var metadata: AppleSQLMetadata
        package let isReadOnly: Bool
        let statements: PostgreSQLStatements
        /// The insert and update statements of the saves, made once per entity.
        let writeStatements = SQLWriteStatements()
        /// The store's URL without its password.
        package var storeName: String { statements.storeName }
        /// Keys reserved and not handed out yet, by hierarchy root number.
        private var reservedKeys: [Int: ClosedRange<Int64>] = [:]
        private let keyLock = NSLock()

        /// How many primary keys one trip to `Z_PRIMARYKEY` reserves at least.
        static let keyBlockSize: Int64 = 128
        /// The `NSStoreType` of the store's metadata.
        package static let storeType = "PostgreSQL"

        package var schema: StoreSchema { layout.schema }

        /// The store's UUID (`Z_METADATA.Z_UUID`, `NSStoreUUID`).
        package var storeUUID: String? { metadata.storeUUID }

        private init(
            database: PostgreSQLConnectionPool, url: PostgreSQLStoreURL, layout: AppleSQLLayout, metadata: AppleSQLMetadata,
            historyTables: AppleSQLHistoryTables?, readOnly: Bool
        ) {
            self.database = database
            self.url = url
            self.layout = layout
            self.historyTables = historyTables
            self.metadata = metadata
            isReadOnly = readOnly
            statements = PostgreSQLStatements(layout: layout, storeName: url.redacted)
        }

        deinit { database.close() }

        /// Closes the pool's connections, waiting for them (see `PostgreSQLConnectionPool.shutdown()`).
        package func close() async {
            await database.shutdown()
        }

        /// Connects and opens the store in the URL's schema, creating its tables when the schema
        /// has none (and the store is not read-only).
        ///
        /// - Parameters:
        ///   - url: `postgres://user:password@host:port/database?schema=name&sslmode=require`
        ///     (`PostgreSQLStoreURL`). **Default schema:** `public`.
        ///   - poolSize: the most connections the store opens. **Default:** 8.
        ///   - tracksHistory: records persistent history (`NSPersistentHistoryTrackingKey`),
        ///     creating its tables when the schema lacks them. **Default:** false.
        ///   - checksVersionHashes: false opens a store whatever its version hashes
        ///     (`NSIgnorePersistentStoreVersioningOption`). **Default:** true.
        ///   - logger: the store's logger: postgres-nio's background messages, and the SQL trace
        ///     when `trace` is set. **Default:** none.
        ///   - trace: the SQL trace of the store's statements (`SQLTrace.store(logger:showsValues:)`).
        ///     **Default:** none (the process-wide trace).
        /// - Throws: `NSPersistentStoreOpenError` (a malformed URL, a server that cannot be reached
        ///   or refuses the login), `NSPersistentStoreInvalidTypeError` (the schema holds another kind
        ///   of store), `NSPersistentStoreIncompatibleVersionHashError` (another model's store),
        ///   `NSPersistentStoreIncompatibleSchemaError` (tables or columns missing).
        package static func open(
            url: URL, schema: StoreSchema, readOnly: Bool = false, modelVersionHashes: [String: Data],
            versionIdentifiers: [String] = [""], poolSize: Int = 8, tracksHistory: Bool = false, checksVersionHashes: Bool = true,
            logger: Logger? = nil, trace: SQLTrace? = nil
        ) throws -> PostgreSQLRowStore {
            let (database, parsed) = try connect(url: url, poolSize: poolSize, logger: logger, trace: trace)
            let name = parsed.redacted
            do {
                let (layout, metadata, history) = try database.withTransaction { connection in
                    // One opener at a time per schema: the first creates the tables, the others wait
                    // and then find them.
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(advisoryLockKey(parsed.schema))])
                    if try !hasStore(connection, schemaName: parsed.schema) {
                        guard !readOnly else {
                            throw PostgreSQLStoreError.open(
                                "There is no store in \(name) to open read-only (no Z_METADATA table)", store: name)
                        }
                        let (layout, metadata) = try create(
                            connection, schema: schema, name: name, versionHashes: modelVersionHashes,
                            versionIdentifiers: versionIdentifiers)
                        let history =
                            tracksHistory ? try createHistoryTables(connection, layout: layout, schemaName: parsed.schema) : nil
                        return (layout, metadata, history)
                    }
                    let (layout, metadata) = try check(
                        connection, schema: schema, name: name, schemaName: parsed.schema,
                        hashes: checksVersionHashes ? modelVersionHashes : nil)
                    let history =
                        tracksHistory && !readOnly
                        ? try createHistoryTables(connection, layout: layout, schemaName: parsed.schema) : nil
                    return (layout, metadata, history)
                }
                return PostgreSQLRowStore(
                    database: database, url: parsed, layout: layout, metadata: metadata, historyTables: history,
                    readOnly: readOnly)
            } catch {
                database.close()
                if let error = error as? PostgreSQLServerError {
                    throw PostgreSQLStoreError.open(
                        "Can't open the PostgreSQL store \(name): \(error)", store: name, underlying: error)
                }
                throw error
            }
        }

        /// The database of a store URL, connected.
        /// - Throws: `NSPersistentStoreOpenError` for a malformed URL or a server that can't be
        ///   reached or refuses the login.
        static func connect(
            url: URL, poolSize: Int, logger: Logger? = nil, trace: SQLTrace? = nil
        ) throws -> (PostgreSQLConnectionPool, PostgreSQLStoreURL) {
            let parsed: PostgreSQLStoreURL
            do {
                parsed = try PostgreSQLStoreURL(url)
            } catch {
                throw PostgreSQLStoreError.open(
                    "Can't open the PostgreSQL store \(url.absoluteString.redactingPassword): \(error)", store: "",
                    underlying: error)
            }
            do {
                return (try PostgreSQLConnectionPool(url: parsed, poolSize: poolSize, logger: logger, trace: trace), parsed)
            } catch {
                throw PostgreSQLStoreError.open(
                    "Can't connect to the PostgreSQL store \(parsed.redacted): \(error)", store: parsed.redacted,
                    underlying: error)
            }
        }

        /// Removes the store at `url`: drops its schema with everything in it.
        ///
        /// **Differences from Apple:** a store in the `public` schema is not destroyed (the schema
        /// may hold other tables): the call throws `NSPersistentStoreOperationError`. Give stores a
        /// schema of their own (`?schema=`).
        package static func destroy(url: URL) throws {
            let parsed: PostgreSQLStoreURL
            do {
                parsed = try PostgreSQLStoreURL(url)
            } catch {
                throw PostgreSQLStoreError.operation("Can't destroy \(url.absoluteString.redactingPassword): \(error)", store: "")
            }
            guard parsed.schema != "public" else {
                throw PostgreSQLStoreError.operation(
                    "Can't destroy the store \(parsed.redacted): it is in the public schema, which may hold other tables; "
                        + "stores that are destroyed need a schema of their own (?schema=)",
                    store: parsed.redacted)
            }
            do {
                let database = try PostgreSQLConnectionPool(url: parsed, poolSize: 1)
                defer { database.close() }
                _ = try database.withConnection {
                    try $0.execute("DROP SCHEMA IF EXISTS \(AppleSQLLayout.quoted(parsed.schema)) CASCADE")
                }
            } catch {
                throw PostgreSQLStoreError.operation(
                    "Can't destroy the store \(parsed.redacted): \(error)", store: parsed.redacted, underlying: error)
            }
        }

        /// The key of the advisory lock that serializes opening one schema: FNV-1a of its name,
        /// the same in every process.
        static func advisoryLockKey(_ schema: String) -> Int64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in ("OpenCoreData/" + schema).utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return Int64(bitPattern: hash)
        }

        /// Creates a new store's tables, `Z_PRIMARYKEY` rows and metadata.
        private static func create(
            _ connection: PostgreSQLConnection, schema: StoreSchema, name: String, versionHashes: [String: Data],
            versionIdentifiers: [String]
        ) throws -> (AppleSQLLayout, AppleSQLMetadata) {
            let layout = try AppleSQLLayout(schema: schema)
            for statement in layout.postgreSQLCreateStatements { try connection.execute(statement) }
            let session = PostgreSQLSession(
                connection: connection, statements: PostgreSQLStatements(layout: layout, storeName: name))
            for row in layout.primaryKeyRows {
                try session.run(
                    "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                    [.integer(Int64(row.entityNumber)), .string(row.name), .integer(Int64(row.superNumber)), .integer(row.max)])
            }
            var metadata = AppleSQLMetadata(versionHashes: versionHashes, versionIdentifiers: versionIdentifiers)
            metadata.dictionary["NSStoreType"] = storeType
            try session.run(
                "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (?, ?, ?)",
                [
                    .integer(metadata.version), metadata.storeUUID.map(StoreValue.string) ?? .null,
                    .data(try metadata.encodedPlist(path: name)),
                ])
            return (layout, metadata)
        }

        /// Whether the schema holds a store (a `Z_METADATA` table).
        static func hasStore(_ connection: PostgreSQLConnection, schemaName: String) throws -> Bool {
            var tableCount: Int64 = 0
            try connection.query(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2",
                [.string(schemaName), .string("Z_METADATA")]
            ) { tableCount = $0.int64(0) ?? 0 }
            return tableCount > 0
        }

        /// The store's metadata, checked to be a PostgreSQL store's.
        static func readMetadata(_ connection: PostgreSQLConnection, name: String) throws -> AppleSQLMetadata {
            var row: (Int64, String?, Data?)?
            try connection.query(
                "SELECT \"Z_VERSION\", \"Z_UUID\", \"Z_PLIST\" FROM \"Z_METADATA\" ORDER BY \"Z_VERSION\" LIMIT 1", []
            ) { row = ($0.int64(0) ?? 0, $0.string(1), $0.data(2)) }
            guard let row else {
                throw PostgreSQLStoreError.invalidType("The store \(name) has no metadata (Z_METADATA is empty)", store: name)
            }
            let metadata = try AppleSQLMetadata.decode(version: row.0, uuid: row.1, plist: row.2, path: name)
            if let type = metadata.storeTypeName, type != storeType {
                throw PostgreSQLStoreError.invalidType("The store \(name) is of type \(type), not \(storeType)", store: name)
            }
            return metadata
        }

        /// Reads an existing store's metadata and entity numbers and checks them against the model.
        static func check(
            _ connection: PostgreSQLConnection, schema: StoreSchema, name: String, schemaName: String, hashes: [String: Data]?
        ) throws -> (AppleSQLLayout, AppleSQLMetadata) {
            let metadata = try readMetadata(connection, name: name)
            if let hashes { try AppleSQLCompatibility.check(store: metadata.versionHashes, model: hashes, path: name) }
            var numbers: [String: Int] = [:]
            try connection.query("SELECT \"Z_NAME\", \"Z_ENT\" FROM \"Z_PRIMARYKEY\" ORDER BY \"Z_ENT\"", []) { row in
                if let entity = row.string(0), numbers[entity] == nil { numbers[entity] = Int(row.int64(1) ?? 0) }
            }
            let layout: AppleSQLLayout
            do {
                layout = try AppleSQLLayout(schema: schema, entityNumbers: numbers)
            } catch let error as NSError {
                throw PostgreSQLStoreError.incompatibleSchema("\(error.localizedDescription) in \(name)", store: name)
            }
            var present: [String: Set<String>] = [:]
            try connection.query(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1", [.string(schemaName)]
            ) { row in
                if let table = row.string(0), let column = row.string(1) { present[table, default: []].insert(column) }
            }
            var missing: [String] = []
            func require(_ table: String, _ columns: [String]) {
                guard let found = present[SQLDialect.postgreSQLName(table)] else { return missing.append(table) }
                missing += columns.filter { !found.contains(SQLDialect.postgreSQLName($0)) }.map { "\(table).\($0)" }
            }
            for table in layout.tables { require(table.name, ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)) }
            for join in layout.joinTables { require(join.name, [join.firstColumn, join.secondColumn] + join.orderColumns) }
            guard missing.isEmpty else {
                throw PostgreSQLStoreError.incompatibleSchema(
                    "The store \(name) lacks tables or columns the model needs: \(missing.joined(separator: ", "))", store: name)
            }
            return (layout, metadata)
        }

        // MARK: - Saves

        package func apply(_ changes: SaveChanges) throws {
            guard !changes.isEmpty else { return }
            try refuseIfReadOnly("save changes")
            try save(changes, attempts: 5)
        }

        /// Runs the save in one transaction, again after a serialization failure, a deadlock or a
        /// unique index refusing a row another save committed meanwhile (`attempts` in all).
        ///
        /// A save whose statements can be written before any has run (most can: no persistent
        /// history, no constraint broken within the save) runs them in one go on the connection's
        /// event loop, the thread waiting once (`runTransaction`); each is sent when the one
        /// before has had the answer the save expects (its row found, no stored row with a
        /// constraint's values). When one has not, the transaction rolls back and the save runs
        /// again statement by statement, which finds out why.
        private func save(_ changes: SaveChanges, attempts: Int) throws {
            if changes.history == nil, let planned = plannedStatements(changes),
                try retrying(attempts, { try database.runTransaction(planned) })
            {
                return
            }
            do {
                try retrying(attempts) {
                    try database.withTransaction { connection in
                        try write(changes, session: PostgreSQLSession(connection: connection, statements: statements))
                    }
                }
            } catch let stale as StaleRows {
                throw try conflicts(stale.keys, changes: changes)
            }
        }

        /// Runs `body` (one transaction), again after a serialization failure, a deadlock or a
        /// unique index refusing a row another save committed meanwhile (`attempts` in all);
        /// the server's other errors come out as the store's.
        private func retrying<T>(_ attempts: Int, _ body: () throws -> T) throws -> T {
            var attempt = 1
            while true {
                do {
                    return try body()
                } catch let error as PostgreSQLServerError {
                    switch error.kind {
                    case .serializationFailure where attempt < attempts, .deadlock where attempt < attempts,
                        .uniqueViolation where attempt < attempts:
                        attempt += 1
                        Thread.sleep(forTimeInterval: Double.random(in: 0.001...0.01) * Double(attempt))
                    case .commitOutcomeUnknown:
                        throw PostgreSQLStoreError.outcomeUnknown(store: storeName, underlying: error)
                    default:
                        throw PostgreSQLStoreError.save(
                            "Can't save to \(storeName): \(error)", store: storeName, underlying: error)
                    }
                }
            }
        }

        /// Runs a batch request's write (`RowStore.execute(_:)`) in one transaction: set-based SQL
        /// (`SQLBatchWriter`), then its persistent history.
        package func execute(_ batch: BatchWrite) throws -> BatchWriteOutcome {
            try refuseIfReadOnly("run a batch request")
            let (statement, write) = try compileBatch(batch)
            return try retrying(5) {
                try database.withTransaction { connection in
                    let session = PostgreSQLSession(connection: connection, statements: statements)
                    let outcome = try SQLBatchWriter(session: session, layout: layout).run(write, statement: statement)
                    if let history = write.history(of: outcome.keys ?? [], schema: schema) {
                        try writeHistory(history, session: session)
                    }
                    return outcome
                }
            }
        }

        /// The store's writer on `session`: keys come from `Z_MAX` first (see `notesUsedKeys`), and
        /// the statements of each entity are kept (`writeStatements`).
        private func writer<Session: SQLSession>(_ session: Session) -> SQLRowWriter<Session> {
            var writer = SQLRowWriter(session: session, layout: layout)
            writer.notesUsedKeys = false
            writer.kept = writeStatements
            return writer
        }

        /// The statements of `write(_:session:)` for `changes`, planned as if every row an update
        /// or delete names is there and no stored row has a constraint's values; nil when the save
        /// can't be planned so (it breaks a constraint within itself, or a statement needs a
        /// query's answer).
        private func plannedStatements(_ changes: SaveChanges) -> [PlannedStatement]? {
            let plan = PostgreSQLSavePlan(statements: statements)
            let writer = self.writer(plan)
            do {
                let violations = try UniquenessCheck(schema: schema).violations(in: changes) { entityID, slots, values in
                    plan.expectNoRows(try writer.keysQuery(of: entityID, slots: slots), values)
                    return []
                }
                guard violations.isEmpty else { return nil }
                try writer.delete(changes.deleted, expectedVersions: changes.expectedVersions)
                try writer.insert(changes.inserted)
                try writer.update(changes.updated, expectedVersions: changes.expectedVersions)
            } catch {
                return nil
            }
            return plan.planned
        }

        /// Rows whose version was not the expected one: the transaction rolls back, then they are
        /// read as they are now.
        private struct StaleRows: Error {
            let keys: [ObjectKey]
        }

        /// Checks uniqueness constraints, then deletes, inserts and updates, in the open
        /// transaction; throws `SaveConflictError` or `StaleRows` (the transaction then rolls back).
        private func write(_ changes: SaveChanges, session: PostgreSQLSession) throws {
            let writer = self.writer(session)
            let reader = SQLRowReader(session: session, layout: layout)
            let violations = try UniquenessCheck(schema: schema).violations(in: changes) { entityID, slots, values in
                let keys = try writer.keys(of: entityID, slots: slots, values: values)
                return keys.isEmpty ? [] : try reader.rows(for: keys)
            }
            guard violations.isEmpty else { throw SaveConflictError(constraintConflicts: violations) }
            var stale = try writer.delete(changes.deleted, expectedVersions: changes.expectedVersions)
            try writer.insert(changes.inserted)
            stale += try writer.update(changes.updated, expectedVersions: changes.expectedVersions)
            guard stale.isEmpty else { throw StaleRows(keys: stale) }
            if let history = changes.history { try writeHistory(history, session: session) }
        }

        /// The `SaveConflictError` of rows found stale, with their rows as the database has them.
        private func conflicts(_ stale: [ObjectKey], changes: SaveChanges) throws -> SaveConflictError {
            let current = try rows(for: stale)
            let byKey = Dictionary(current.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            return SaveConflictError(
                versionConflicts: stale.map { key in
                    VersionConflict(key: key, expectedVersion: changes.expectedVersions[key] ?? 0, current: byKey[key])
                })
        }

        /// The first phase of a save across stores: the save is written in a transaction that a
        /// thread of its own holds open (with one of the pool's connections) until `commit()` or
        /// `rollBack()`.
        package func prepare(_ changes: SaveChanges) throws -> PreparedSave {
            try refuseIfReadOnly("save changes")
            let state = PreparedSaveState()
            Thread.detachNewThread { [self] in
                do {
                    try database.withTransaction { connection in
                        try write(changes, session: PostgreSQLSession(connection: connection, statements: statements))
                        state.written(nil)
                        guard state.awaitDecision() else { throw PreparedSaveState.RolledBack() }
                    }
                    state.finished(nil)
                } catch is PreparedSaveState.RolledBack {
                    state.finished(nil)
                } catch let error as PostgreSQLServerError where error.kind == .commitOutcomeUnknown {
                    state.finished(PostgreSQLStoreError.outcomeUnknown(store: storeName, underlying: error))
                } catch {
                    state.written(error)
                    state.finished(error)
                }
            }
            if let error = state.awaitWritten() {
                if let stale = error as? StaleRows { throw try conflicts(stale.keys, changes: changes) }
                if let error = error as? PostgreSQLServerError {
                    throw PostgreSQLStoreError.save("Can't save to \(storeName): \(error)", store: storeName, underlying: error)
                }
                throw error
            }
            return PreparedPostgreSQLSave(state: state)
        }

        package func newPrimaryKeys(forEntity entityID: Int, count: Int) throws -> [Int64] {
            guard schema.entities.indices.contains(entityID - 1) else {
                throw PostgreSQLStoreError.operation("No entity numbered \(entityID) in the store's schema", store: storeName)
            }
            guard count > 0 else { return [] }
            try refuseIfReadOnly("reserve primary keys")
            let root = layout.entityNumber(of: layout.table(of: entityID).rootID)
            keyLock.lock()
            defer { keyLock.unlock() }
            var keys: [Int64] = []
            keys.reserveCapacity(count)
            while keys.count < count {
                if let range = reservedKeys[root] {
                    let taken = min(Int64(count - keys.count), range.upperBound - range.lowerBound + 1)
                    let last = range.lowerBound + taken - 1
                    keys += range.lowerBound...last
                    reservedKeys[root] = last == range.upperBound ? nil : (last + 1)...range.upperBound
                    continue
                }
                let block = max(Int64(count - keys.count), Self.keyBlockSize)
                reservedKeys[root] = try reserveBlock(block, root: root)
            }
            return keys
        }

        /// Raises the root's `Z_MAX` by `count` in one statement (its own short transaction) and
        /// returns the keys after the old value.
        private func reserveBlock(_ count: Int64, root: Int) throws -> ClosedRange<Int64> {
            var maximum: Int64?
            do {
                try PostgreSQLSession(pool: database, statements: statements).query(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX",
                    [.integer(count), .integer(Int64(root))]
                ) { maximum = $0.int64(at: 0) }
            } catch let error as PostgreSQLServerError {
                guard error.sqlState == "22003" else {
                    throw PostgreSQLStoreError.operation(
                        "Can't reserve primary keys in \(storeName): \(error)", store: storeName, underlying: error)
                }
                throw PostgreSQLStoreError.save(
                    "Can't save to \(storeName): \(count) new primary key(s) are needed for entity number \(root), but they "
                        + "would pass \(Int64.max); Z_PRIMARYKEY is damaged or its keys are used up. Nothing was saved",
                    store: storeName, underlying: error)
            }
            guard let maximum else {
                throw PostgreSQLStoreError.operation(
                    "No entity numbered \(root) in Z_PRIMARYKEY of \(storeName)", store: storeName)
            }
            return (maximum - count + 1)...maximum
        }

        // MARK: - Helpers

        /// Runs `body`, which only reads, with a session whose statements each run on a
        /// connection leased for it alone (see `PostgreSQLSession`).
        package func withSession<T>(_ body: (PostgreSQLSession) throws -> T) throws -> T {
            do {
                return try body(PostgreSQLSession(pool: database, statements: statements))
            } catch let error as PostgreSQLServerError {
                throw PostgreSQLStoreError.operation(
                    "The PostgreSQL store \(storeName) failed: \(error)", store: storeName, underlying: error)
            }
        }

        func refuseIfReadOnly(_ action: String) throws {
            guard isReadOnly else { return }
            throw PostgreSQLStoreError.operation("Can't \(action): the store \(storeName) was opened read-only", store: storeName)
        }
    }

    /// A save written in a transaction that a thread holds open until it is committed or rolled
    /// back (`PostgreSQLRowStore.prepare(_:)`); dropped without either, it rolls back.
    private final class PreparedPostgreSQLSave: PreparedSave {
        private let state: PreparedSaveState

        init(state: PreparedSaveState) {
            self.state = state
        }

        func commit() throws {
            if let error = state.decide(true) { throw error }
        }

        func rollBack() {
            _ = state.decide(false)
        }

        deinit { rollBack() }
    }

    /// What the thread holding a prepared save's transaction and the caller tell each other: the
    /// save written (or why not), the decision, the end of the transaction.
    private final class PreparedSaveState: @unchecked Sendable {
        // @unchecked Sendable: every field is read and written with `condition` locked.

        struct RolledBack: Error {}

        private let condition = NSCondition()
        private var writeResult: Error??
        private var decision: Bool?
        private var finishResult: Error??

        func written(_ error: Error?) {
            condition.lock()
            if writeResult == nil { writeResult = .some(error) }
            condition.broadcast()
            condition.unlock()
        }

        func awaitWritten() -> Error? {
            condition.lock()
            defer { condition.unlock() }
            while writeResult == nil { condition.wait() }
            return writeResult ?? nil
        }

        func awaitDecision() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while decision == nil { condition.wait() }
            return decision ?? false
        }

        func finished(_ error: Error?) {
            condition.lock()
            finishResult = .some(error)
            condition.broadcast()
            condition.unlock()
        }

        /// Gives the decision (once; later calls return nil) and waits for the transaction's end.
        func decide(_ commit: Bool) -> Error? {
            condition.lock()
            defer { condition.unlock() }
            guard decision == nil else { return nil }
            decision = commit
            condition.broadcast()
            while finishResult == nil { condition.wait() }
            return finishResult ?? nil
        }
    }

    extension String {
        /// A URL's text with the password (between `:` and `@` after `//`) replaced by `***`.
        package var redactingPassword: String {
            guard let scheme = range(of: "://"), let at = self[scheme.upperBound...].firstIndex(of: "@"),
                let colon = self[scheme.upperBound..<at].firstIndex(of: ":")
            else { return self }
            return String(self[..<index(after: colon)]) + "***" + String(self[at...])
        }
    }

    extension PostgreSQLRowStore: SQLFetchStore, PagingRowStore {
        /// PostgreSQL's.
        package var dialect: SQLDialect { .postgreSQL }

        package func unsupportedFetchError(_ reason: String) -> Error {
            PostgreSQLStoreError.unsupportedFetch(reason, store: storeName)
        }

        /// The statement as PostgreSQL gets it (`$1` placeholders, quoted names) and its `EXPLAIN`.
        package func queryPlan(_ query: SQLQuery) throws -> (statement: SQLQuery, lines: [String]) {
            var lines: [String] = []
            try withSession { session in
                try session.query("EXPLAIN " + query.sql, query.arguments) { row in lines.append(row.string(at: 0) ?? "") }
            }
            return (SQLQuery(sql: statements.finished(query.sql), arguments: query.arguments), lines)
        }
    }

    extension PostgreSQLRowStore: SQLRowStore {
        package func exportContents() throws -> StoreContents {
            try withSession { try SQLStoreTransfer.export(session: $0, layout: layout) }
        }

        package func importContents(
            _ contents: StoreContents, storeUUID: String?, progress: (Int) -> Void
        ) throws {
            try refuseIfReadOnly("copy a store into it")
            var metadata = metadata
            if let storeUUID { metadata.storeUUID = storeUUID }
            let plist = try metadata.encodedPlist(path: storeName)
            do {
                try database.withTransaction { connection in
                    let session = PostgreSQLSession(connection: connection, statements: statements)
                    try SQLStoreTransfer.import(contents, session: session, layout: layout, progress: progress)
                    try session.run(
                        "UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ?",
                        [metadata.storeUUID.map(StoreValue.string) ?? .null, .data(plist)])
                }
            } catch let error as PostgreSQLServerError {
                throw PostgreSQLStoreError.save("Can't copy into \(storeName): \(error)", store: storeName, underlying: error)
            }
            self.metadata = metadata
            keyLock.lock()
            reservedKeys.removeAll()
            keyLock.unlock()
        }
    }

#endif
