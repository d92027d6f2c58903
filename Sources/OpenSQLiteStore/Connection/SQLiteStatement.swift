import CSQLite
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// A prepared statement: bind `StoreValue`s as parameters, step, read columns by index.
///
/// ```swift
/// let statement = try connection.statement("SELECT Z_PK, ZTITLE FROM ZBOOK WHERE ZPRICE > ?")
/// try statement.bind([.decimal(10)])
/// while try statement.step() {
///     let key = statement.int64(at: 0)
///     let title = statement.value(at: 1, kind: .string)
/// }
/// ```
///
/// Values are bound as Apple's store writes them (see `bind(_:at:)`) and read back by column
/// index straight into a `StoreValue` of the attribute's kind (see `value(at:kind:)`), without a
/// dictionary or `Any` per row.
package final class SQLiteStatement {
    /// The SQL text, with `?` for every value.
    package let sql: String
    let handle: OpaquePointer
    private let database: OpaquePointer
    private let path: String
    /// The connection, for its trace settings (see `SQLTrace`).
    private weak var connection: SQLiteConnection?
    /// Statements the trace itself runs (`EXPLAIN QUERY PLAN`) are not traced.
    private var isTraced = true
    /// The values bound since the last reset, for the trace and `EXPLAIN QUERY PLAN`; kept only
    /// while the trace shows them (level 2 and up).
    private var boundValues: [StoreValue] = []
    /// Whether this run keeps its bound values, decided at its first bind (one look at the
    /// trace settings per run, not per value).
    private var keepsBoundValues: Bool?
    /// Whether the statement has stepped since the last reset.
    private var started = false
    /// The trace of the current run, when tracing is on.
    private var tracedRun: (trace: SQLTrace, start: Date, rows: Int)?
    /// The bytes of the text and blobs bound since the last reset, read by SQLite in place.
    /// Used on its connection's thread alone: no dynamic exclusivity check per value bound.
    @exclusivity(unchecked) private var boundBytes = BoundBytes()

    init(connection: SQLiteConnection, sql: String, traced: Bool = true) throws {
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard result == SQLITE_OK, let pointer else {
            sqlite3_finalize(pointer)
            throw SQLiteStoreError.sqlite(connection.lastErrorMessage, resultCode: result, sql: sql, path: connection.url.path)
        }
        self.sql = sql
        self.handle = pointer
        self.database = connection.handle
        self.path = connection.url.path
        self.connection = connection
        self.isTraced = traced
    }

    deinit { sqlite3_finalize(handle) }

    /// Makes the statement ready to run again and, unless `clearingBindings` is false (for a
    /// caller about to bind every parameter again), clears its bindings.
    package func reset(clearingBindings: Bool = true) {
        if tracedRun != nil { finishTrace() }
        started = false
        if !boundValues.isEmpty { boundValues.removeAll(keepingCapacity: true) }
        keepsBoundValues = nil
        sqlite3_reset(handle)
        // A caller that keeps the bindings binds every parameter again before the next step,
        // so the bytes are free either way; bindings into a buffer that moved are cleared.
        if boundBytes.reuse() || clearingBindings { sqlite3_clear_bindings(handle) }
    }

    /// The number of parameters the statement has (its `?`s).
    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    // MARK: - Running

    /// Advances to the next row: true if there is one, false when the statement is done.
    /// - Throws: `NSSQLiteError` with SQLite's message and the SQL.
    package func step() throws -> Bool {
        if !started {
            started = true
            if isTraced {
                StoreStatementLog.current?.record(sql)
                if let trace = connection?.activeTrace, trace.level > 0 { startTrace(trace) }
            }
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            if tracedRun != nil { traceRow() }
            return true
        case SQLITE_DONE:
            if tracedRun != nil { finishTrace() }
            return false
        case let result:
            let error = failure(result)
            if tracedRun != nil { finishTrace() }
            sqlite3_reset(handle)
            throw error
        }
    }

    // MARK: - Tracing

    private func startTrace(_ trace: SQLTrace) {
        trace.statement(sql)
        if trace.level >= 2 { trace.bindings(boundValues) }
        if trace.level >= 4, let connection {
            do {
                for detail in try connection.queryPlan(sql, arguments: boundValues) { trace.plan(detail) }
            } catch {
                trace.plan("unavailable: \(error.localizedDescription)")
            }
        }
        tracedRun = (trace, Date(), 0)
    }

    private func traceRow() {
        guard var current = tracedRun else { return }
        current.rows += 1
        tracedRun = current
        guard current.trace.level >= 3 else { return }
        current.trace.row(
            (0..<columnCount).map { index in
                switch sqlite3_column_type(handle, index) {
                case SQLITE_NULL: "NULL"
                case SQLITE_INTEGER: String(int64(at: index))
                case SQLITE_FLOAT: "\(double(at: index))"
                case SQLITE_TEXT: "'" + (string(at: index) ?? "") + "'"
                default: "<\(sqlite3_column_bytes(handle, index)) bytes>"
                }
            })
    }

    private func finishTrace() {
        guard let current = tracedRun else { return }
        tracedRun = nil
        if current.trace.level >= 2 {
            current.trace.finished(rows: current.rows, seconds: Date().timeIntervalSince(current.start))
        }
    }

    /// Runs the statement to its end, ignoring any rows.
    package func run() throws {
        while try step() {}
    }

    // MARK: - Binding

    /// Binds `values` to the parameters `?1`, `?2`, … in order.
    package func bind(_ values: [StoreValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the parameter at `index` (from 1), as Apple's store writes it:
    ///
    /// | value | stored as |
    /// |---|---|
    /// | `.bool` | INTEGER 0 or 1 |
    /// | `.integer`, `.double` | INTEGER, REAL |
    /// | `.decimal` | REAL (the real stores keep `DECIMAL` columns as REAL) |
    /// | `.string` | TEXT |
    /// | `.date` | REAL, seconds since 2001-01-01 00:00 UTC (`timeIntervalSinceReferenceDate`) |
    /// | `.data` | BLOB (empty data as an empty BLOB, not NULL) |
    /// | `.uuid` | 16-byte BLOB |
    /// | `.url` | TEXT, the absolute string |
    /// | `.object(key)` | INTEGER, the primary key |
    ///
    /// - Throws: `NSPersistentStoreOperationError` for `.objects` (a list is not one value) and
    ///   `NSSQLiteError` if SQLite refuses (an index out of range).
    ///
    /// **Differences from Apple:** none known for the values; a `Decimal` with more than 15-17
    /// significant digits loses precision, as it does in Apple's store.
    package func bind(_ value: StoreValue, at index: Int32) throws {
        if keepsValues(), Int(index) == boundValues.count + 1 { boundValues.append(value) }
        try bindUntraced(value, at: index)
    }

    /// Binds an insert's rows to the parameters in order, each straight from the row as it is
    /// read (see `SQLInsertRows`); through `bind(_:at:)` while the trace keeps the values.
    package func bind(_ insert: SQLInsertRows) throws {
        guard !keepsValues() else { return try bind(insert.values()) }
        var index: Int32 = 1
        for position in insert.positions {
            let row = try insert.row(at: position)
            try bindUntraced(.integer(row.key.primaryKey), at: index)
            try bindUntraced(.integer(insert.entityNumber), at: index + 1)
            try bindUntraced(.integer(row.version), at: index + 2)
            index += 3
            for column in insert.columns {
                // A slot's value is bound where the row holds it, not copied out first.
                if case .value(let slot) = column {
                    try bindUntraced(row.values[slot], at: index)
                } else {
                    try bindUntraced(insert.value(column, of: row), at: index)
                }
                index += 1
            }
        }
    }

    /// Whether this run keeps its bound values for the trace (see `keepsBoundValues`).
    private func keepsValues() -> Bool {
        if keepsBoundValues == nil { keepsBoundValues = isTraced && (connection?.activeTrace.level ?? 0) >= 2 }
        return keepsBoundValues == true
    }

    /// `bind(_:at:)` without keeping the value for the trace.
    @inline(__always)
    private func bindUntraced(_ value: StoreValue, at index: Int32) throws {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(handle, index)
        case .bool(let bool): result = sqlite3_bind_int64(handle, index, bool ? 1 : 0)
        case .integer(let integer): result = sqlite3_bind_int64(handle, index, integer)
        case .double(let double): result = sqlite3_bind_double(handle, index, double)
        case .decimal(let decimal): result = sqlite3_bind_double(handle, index, decimal.nearestDouble)
        case .string(let string): result = bindText(string, at: index)
        case .date(let date): result = sqlite3_bind_double(handle, index, date.timeIntervalSinceReferenceDate)
        case .data(let data): result = bindBlob(data, at: index)
        case .uuid(let uuid): result = bindBlob(withUnsafeBytes(of: uuid.uuid) { Data($0) }, at: index)
        case .url(let url): result = bindText(url.absoluteString, at: index)
        case .object(let key): result = sqlite3_bind_int64(handle, index, key.primaryKey)
        case .objects:
            throw SQLStoreError.operation("A list of objects can't be bound as one SQL parameter (\(sql))", path: path)
        }
        guard result == SQLITE_OK else { throw failure(result) }
    }

    private func bindText(_ string: String, at index: Int32) -> Int32 {
        // A native string's bytes are read in place; another (bridged) is made native first.
        if let result = string.utf8.withContiguousStorageIfAvailable({ bindText(UnsafeRawBufferPointer($0), at: index) }) {
            return result
        }
        var string = string
        return string.withUTF8 { bindText(UnsafeRawBufferPointer($0), at: index) }
    }

    private func bindText(_ buffer: UnsafeRawBufferPointer, at index: Int32) -> Int32 {
        // An empty buffer may have no base address; SQLite binds NULL for a nil pointer.
        guard let base = buffer.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, nil) }
        guard let kept = boundBytes.copy(buffer) else {
            return sqlite3_bind_text64(
                handle, index, base.assumingMemoryBound(to: CChar.self), UInt64(buffer.count), sqliteTransient,
                UInt8(SQLITE_UTF8))
        }
        return sqlite3_bind_text64(
            handle, index, kept.assumingMemoryBound(to: CChar.self), UInt64(buffer.count), nil, UInt8(SQLITE_UTF8))
    }

    private func bindBlob(_ data: Data, at index: Int32) -> Int32 {
        if data.isEmpty { return sqlite3_bind_zeroblob(handle, index, 0) }
        return data.withUnsafeBytes { buffer in
            guard let kept = boundBytes.copy(buffer) else {
                return sqlite3_bind_blob64(handle, index, buffer.baseAddress, UInt64(buffer.count), sqliteTransient)
            }
            return sqlite3_bind_blob64(handle, index, kept, UInt64(buffer.count), nil)
        }
    }

    // MARK: - Reading columns

    /// The number of columns in a result row.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of a result column.
    package func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// True if the column holds NULL.
    package func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The column as an integer (SQLite's conversion for other types; 0 for NULL).
    package func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The column as a double (SQLite's conversion for other types; 0 for NULL).
    package func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// The column as text; nil for NULL.
    package func string(at index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes; nil for NULL.
    package func data(at index: Int32) -> Data? {
        guard !isNull(at: index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// The column as SQLite holds it (its storage class: `.integer`, `.double`, `.string`,
    /// `.data` or `.null`), which binds back to an equal value: for values a statement
    /// compares with again, such as a paged fetch's position (`SQLFetchStore.page(of:after:)`).
    package func storedValue(at index: Int32) -> StoreValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .double(double(at: index))
        case SQLITE_TEXT: return string(at: index).map(StoreValue.string) ?? .null
        case SQLITE_BLOB: return data(at: index).map(StoreValue.data) ?? .null
        default: return .null
        }
    }

    /// The column as the stored value of an attribute of `kind`: the inverse of `bind(_:at:)`.
    ///
    /// NULL is `.null` for every kind. Otherwise: integer kinds `.integer`; `.boolean` `.bool`
    /// (non-zero is true); `.double`/`.float` `.double`; `.decimal` `.decimal` (a REAL through
    /// its shortest spelling, so 10.11 reads as exactly 10.11; TEXT parsed); `.string` `.string`;
    /// `.date` `.date` from seconds since 2001; `.binary`/`.transformable` `.data`; `.uuid`
    /// `.uuid` from a 16-byte BLOB (or a UUID string; other bytes stay `.data`); `.uri` `.url`
    /// (text that is no URL stays `.string`); `.objectID` and `.undefined` `.null` (not kept in
    /// columns by this store).
    package func value(at index: Int32, kind: AttributeKind) -> StoreValue {
        // The common kinds ask for the type only when the value could be a NULL (zero, or no
        // text): one call into SQLite per value instead of two.
        switch kind {
        case .integer16, .integer32, .integer64:
            let number = int64(at: index)
            return number == 0 && isNull(at: index) ? .null : .integer(number)
        case .boolean:
            let number = int64(at: index)
            return number == 0 && isNull(at: index) ? .null : .bool(number != 0)
        case .double, .float:
            let number = double(at: index)
            return number == 0 && isNull(at: index) ? .null : .double(number)
        case .string:
            return string(at: index).map(StoreValue.string) ?? .null
        case .date:
            let seconds = double(at: index)
            return seconds == 0 && isNull(at: index) ? .null : .date(Date(timeIntervalSinceReferenceDate: seconds))
        default:
            break
        }
        let type = sqlite3_column_type(handle, index)
        if type == SQLITE_NULL { return .null }
        switch kind {
        case .integer16, .integer32, .integer64, .boolean, .double, .float, .string, .date:
            return .null  // read above
        case .decimal:
            if type == SQLITE_INTEGER { return .decimal(Decimal(int64(at: index))) }
            if type == SQLITE_TEXT || type == SQLITE_BLOB, let text = string(at: index), let decimal = Decimal(string: text) {
                return .decimal(decimal)
            }
            let double = double(at: index)
            return .decimal(Decimal(spelling: double))
        case .binary, .transformable:
            return data(at: index).map(StoreValue.data) ?? .null
        case .uuid:
            if type == SQLITE_TEXT, let text = string(at: index), let uuid = UUID(uuidString: text) { return .uuid(uuid) }
            guard let data = data(at: index) else { return .null }
            guard data.count == 16 else { return .data(data) }
            let bytes = [UInt8](data)
            return .uuid(
                UUID(
                    uuid: (
                        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                        bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                    )))
        case .uri:
            guard let text = string(at: index) else { return .null }
            return URL(string: text).map(StoreValue.url) ?? .string(text)
        case .objectID, .undefined:
            return .null
        }
    }

    // MARK: - Errors

    /// The error of a failed step: SQLite's, or, when one of the store's SQL functions failed
    /// (a `MATCHES` pattern that is not a regular expression), the error the in-memory store
    /// throws for it: `NSPersistentStoreOperationError` with the function's error underneath.
    private func failure(_ result: Int32) -> NSError {
        let message = SQLiteConnection.errorMessage(database)
        if result & 0xFF == SQLITE_ERROR, let functionError = SQLiteFunctions.takeFailure(message: message) {
            return SQLStoreError.make(
                code: SQLStoreError.operationCode, reason: "Can't evaluate the predicate: \(message)", path: path,
                extra: [NSUnderlyingErrorKey: functionError, "SQL": sql])
        }
        return SQLiteStoreError.sqlite(message, resultCode: result, sql: sql, path: path)
    }
}

/// SQLite copies the bytes before the bind call returns (`SQLITE_TRANSIENT`, a C macro Swift
/// does not import).
private let sqliteTransient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)
