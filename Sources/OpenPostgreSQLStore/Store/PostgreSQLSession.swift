#if PostgreSQL
    import OpenPredicate
    import OpenSQLStore
    import OpenStoreCore

    /// A pooled PostgreSQL connection seen as a `SQLSession`, so that the layout's readers and
    /// writers (`SQLRowReader`, `SQLRowWriter`, `SQLRowDecoder`) run on it unchanged: their SQL,
    /// written with `?` and Apple's names, is turned into PostgreSQL's (`$1`, quoted names) once per
    /// text and kept (`PostgreSQLStatements`).
    ///
    /// Its statements go to one leased connection (a transaction's), or, for reads, to the pool:
    /// each statement then runs on a connection leased for it alone, the calling thread waiting
    /// once (`PostgreSQLConnectionPool.query`). Outside a transaction each statement sees what was
    /// committed when it started either way.
    package struct PostgreSQLSession: SQLSession {
        enum Target {
            case connection(PostgreSQLConnection)
            case pool(PostgreSQLConnectionPool)
        }

        let target: Target
        let statements: PostgreSQLStatements

        init(connection: PostgreSQLConnection, statements: PostgreSQLStatements) {
            target = .connection(connection)
            self.statements = statements
        }

        init(pool: PostgreSQLConnectionPool, statements: PostgreSQLStatements) {
            target = .pool(pool)
            self.statements = statements
        }

        package var dialect: SQLDialect { .postgreSQL }

        @discardableResult
        package func run(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
            switch target {
            case .connection(let connection): try connection.execute(statements.finished(sql), arguments)
            case .pool(let pool): try pool.execute(statements.finished(sql), arguments)
            }
        }

        package func query(_ sql: String, _ arguments: [StoreValue], row: (PostgreSQLResultRow) throws -> Void) throws {
            switch target {
            case .connection(let connection): try connection.query(statements.finished(sql), arguments, row: row)
            case .pool(let pool): try pool.query(statements.finished(sql), arguments, row: row)
            }
        }

        package func operationError(_ reason: String) -> Error { statements.operationError(reason) }

        package func keysExhaustedError(_ reason: String) -> Error { statements.keysExhaustedError(reason) }
    }

    /// A save's statements, written by `SQLRowWriter` as to a `PostgreSQLSession` but kept to be run
    /// later in one go (`PostgreSQLConnection.runTransaction`): a row an `UPDATE` or `DELETE` must
    /// find is assumed found, and checked when the statement runs. A save that needs an answer
    /// before it can go on (a query) can't be planned: `query` throws `Unplannable`.
    final class PostgreSQLSavePlan: SQLSession {
        struct Unplannable: Error {}

        let statements: PostgreSQLStatements
        private(set) var planned: [PlannedStatement] = []

        init(statements: PostgreSQLStatements) {
            self.statements = statements
        }

        var dialect: SQLDialect { .postgreSQL }

        /// Plans the statement; 0, as no row is known to change yet.
        func run(_ sql: String, _ arguments: [StoreValue]) -> Int {
            planned.append(PlannedStatement(sql: statements.finished(sql), arguments: arguments, expectation: .any))
            return 0
        }

        /// Plans the statement, expecting it to change `rows` rows; true.
        func runExpectingChanges(_ sql: String, _ arguments: [StoreValue], rows: Int) -> Bool {
            planned.append(PlannedStatement(sql: statements.finished(sql), arguments: arguments, expectation: .changes(rows)))
            return true
        }

        /// Plans a query expected to find no row (a uniqueness constraint's stored rows).
        func expectNoRows(_ sql: String, _ arguments: [StoreValue]) {
            planned.append(PlannedStatement(sql: statements.finished(sql), arguments: arguments, expectation: .returnsNoRows))
        }

        func query(_ sql: String, _ arguments: [StoreValue], row: (PostgreSQLResultRow) throws -> Void) throws {
            throw Unplannable()
        }

        func operationError(_ reason: String) -> Error { statements.operationError(reason) }

        func keysExhaustedError(_ reason: String) -> Error { statements.keysExhaustedError(reason) }
    }

    /// The PostgreSQL text of the statements a store runs, made once per SQL text: placeholders
    /// numbered and the layout's names quoted (`SQLDialect.finish(_:identifiers:)`).
    final class PostgreSQLStatements: @unchecked Sendable {
        // @unchecked Sendable: `cache` is behind `lock`; the rest is set in `init` and only read.

        /// The store's URL without its password, for messages.
        let storeName: String
        private let identifiers: Set<String>
        private var cache: [String: String] = [:]
        private let lock = NSLock()

        init(layout: AppleSQLLayout, storeName: String) {
            identifiers = layout.postgreSQLIdentifiers.union(PostgreSQLRowStore.historyIdentifiers)
            self.storeName = storeName
        }

        /// Statements naming the tables and columns of two layouts (a migration's old and new).
        init(layouts: [AppleSQLLayout], storeName: String) {
            identifiers = layouts.reduce(PostgreSQLRowStore.historyIdentifiers) { $0.union($1.postgreSQLIdentifiers) }
            self.storeName = storeName
        }

        /// The store's `NSPersistentStoreOperationError` with `reason`.
        func operationError(_ reason: String) -> Error {
            PostgreSQLStoreError.operation(reason, store: storeName)
        }

        /// The store's save error: the primary keys a save needs would pass `Int64.max`.
        func keysExhaustedError(_ reason: String) -> Error {
            PostgreSQLStoreError.save("Can't save to \(storeName): " + reason, store: storeName)
        }

        func finished(_ sql: String) -> String {
            lock.lock()
            defer { lock.unlock() }
            if let cached = cache[sql] { return cached }
            let finished = SQLDialect.postgreSQL.finish(sql, identifiers: identifiers)
            // Apps that build many different predicates would grow it forever: start again.
            if cache.count >= 1024 { cache.removeAll(keepingCapacity: true) }
            cache[sql] = finished
            return finished
        }
    }

    extension PostgreSQLResultRow: SQLRow {
        package func isNull(at index: Int32) -> Bool { isNull(Int(index)) }

        /// The column as an integer: `SUM` of integers is `numeric` in PostgreSQL, read exactly.
        package func int64(at index: Int32) -> Int64 {
            if let integer = int64(Int(index)) { return integer }
            if case .decimal(let decimal) = value(Int(index)) { return NSDecimalNumber(decimal: decimal).int64Value }
            return 0
        }

        package func string(at index: Int32) -> String? { string(Int(index)) }

        package func double(at index: Int32) -> Double { double(Int(index)) ?? 0 }

        package func data(at index: Int32) -> Data? { data(Int(index)) }

        package var columnCount: Int32 { Int32(count) }

        package func storedValue(at index: Int32) -> StoreValue { value(Int(index)) }

        /// The column as a value of `kind`, from the types `PostgreSQLLayout` gives columns.
        package func value(at index: Int32, kind: AttributeKind) -> StoreValue {
            let column = Int(index)
            if isNull(column) { return .null }
            switch kind {
            case .integer16, .integer32, .integer64: return .integer(int64(at: index))
            case .boolean: return .bool(int64(at: index) != 0)
            case .double, .float: return double(column).map(StoreValue.double) ?? .null
            case .date: return double(column).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
            case .string: return string(column).map(StoreValue.string) ?? .null
            case .uri:
                guard let text = string(column) else { return .null }
                return URL(string: text).map(StoreValue.url) ?? .string(text)
            case .binary, .transformable: return data(column).map(StoreValue.data) ?? .null
            case .decimal:
                switch value(column) {
                case .decimal(let decimal): return .decimal(decimal)
                case .integer(let integer): return .decimal(Decimal(integer))
                case .double(let double): return .decimal(Decimal(spelling: double))
                default: return .null
                }
            case .uuid:
                return value(column)
            case .objectID, .undefined:
                return .null
            }
        }
    }
#endif
