import CSQLite
import OpenPredicate
import OpenSQLStore

/// The SQL functions the SQL compiler calls, registered on every connection (with the collations
/// of `SQLiteCollations`): predicate string rules implemented in Swift, so that SQLite answers as
/// the in-memory engine does.
///
/// | function | answers |
/// |---|---|
/// | `ocd_fold(text, flags)` | `text` folded: bit 1 `[c]`, bit 2 `[d]` (`"Crèpes"`, 3 → `"crepes"`) |
/// | `ocd_begins_with(a, b, flags)` | `a BEGINSWITH[flags] b` |
/// | `ocd_ends_with(a, b, flags)` | `a ENDSWITH[flags] b` |
/// | `ocd_contains(a, b, flags)` | `a CONTAINS[flags] b` (substring) |
/// | `ocd_like(a, b, flags)` | `a LIKE[flags] b` (`*` and `?` wildcards) |
/// | `ocd_matches(a, b, flags)` | `a MATCHES[flags] b` (ICU regular expression, whole string) |
///
/// The tests answer 0 when an operand is NULL or not text (as predicates answer false for a
/// non-string operand), so they never make a condition NULL. `ocd_matches` with a pattern
/// that is not a regular expression is an SQL error (`sqlite3_result_error`) carrying the
/// message the in-memory engine throws, so the statement, and the fetch, fail as Apple's raise;
/// the statement then throws the in-memory store's error for it (`NSPersistentStoreOperationError`
/// with the predicate's error underneath, see `SQLiteStatement.step()`).
enum SQLiteFunctions {
    /// The operator of each test function.
    static let tests: [(name: String, operatorType: NSComparisonPredicate.Operator)] = [
        ("ocd_begins_with", .beginsWith), ("ocd_ends_with", .endsWith), ("ocd_contains", .contains),
        ("ocd_like", .like), ("ocd_matches", .matches),
    ]

    /// Registers the functions on a connection.
    static func register(on handle: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var result = sqlite3_create_function_v2(handle, "ocd_fold", 2, flags, nil, foldFunction, nil, nil, nil)
        for test in tests where result == SQLITE_OK {
            let userData = UnsafeMutableRawPointer(bitPattern: UInt(test.operatorType.rawValue) + 1)
            result = sqlite3_create_function_v2(handle, test.name, 3, flags, userData, testFunction, nil, nil, nil)
        }
        if result == SQLITE_OK { result = DecimalAggregates.register(on: handle) }
        if result == SQLITE_OK { result = SQLiteValueFunctions.register(on: handle) }
        return result == SQLITE_OK ? SQLiteCollations.register(on: handle) : result
    }

    /// Makes `string` the result of a function call (SQLite copies it).
    static func resultText(_ context: OpaquePointer?, _ string: String) {
        var string = string
        string.withUTF8 { buffer in
            guard let base = buffer.baseAddress else {
                sqlite3_result_text(context, "", 0, sqliteTransientDestructor)
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                sqlite3_result_text64(context, text, UInt64(buffer.count), sqliteTransientDestructor, UInt8(SQLITE_UTF8))
            }
        }
    }

    /// The text of an argument; nil for NULL and values that are not text.
    static func text(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    /// One compiled test per (operator, options), shared by all connections.
    private static let cache = TestCache()

    static func test(operatorRawValue: UInt, flags: Int64) -> ((String, String) -> Bool)? {
        cache.test(operatorRawValue: operatorRawValue, flags: UInt(truncatingIfNeeded: flags))
    }

    /// `MATCHES` per options (`[c]`, `[d]`), shared by all connections; each keeps its last
    /// pattern compiled.
    private static let regexTests: [@Sendable (String, String) -> Result<Bool, NSError>] = (0..<4).map {
        PredicateStringRules.regexTest(options: NSComparisonPredicate.Options(rawValue: UInt($0)))
    }

    static func regexTest(flags: Int64) -> (String, String) -> Result<Bool, NSError> {
        regexTests[Int(flags & 3)]
    }

    private static let failureKey = "OpenSQLiteStore.SQLiteFunctions.failure"

    /// Keeps the error a function reported to SQLite (`sqlite3_result_error` takes a message
    /// only), for the statement that fails with it on this thread (`takeFailure(message:)`).
    static func recordFailure(_ error: NSError) {
        Thread.current.threadDictionary[failureKey] = error
    }

    /// The error a function reported on this thread, if SQLite's message for the failed step is
    /// its message; forgotten either way.
    static func takeFailure(message: String) -> NSError? {
        let dictionary = Thread.current.threadDictionary
        guard let error = dictionary[failureKey] as? NSError else { return nil }
        dictionary.removeObject(forKey: failureKey)
        return error.localizedDescription == message ? error : nil
    }
}

// @unchecked: `tests` is read and written under `lock` only; the tests themselves are pure.
private final class TestCache: @unchecked Sendable {
    private let lock = NSLock()
    private var tests: [UInt: (String, String) -> Bool] = [:]

    func test(operatorRawValue: UInt, flags: UInt) -> ((String, String) -> Bool)? {
        let cacheKey = operatorRawValue << 8 | (flags & 0xFF)
        lock.lock()
        defer { lock.unlock() }
        if let test = tests[cacheKey] { return test }
        guard let operatorType = NSComparisonPredicate.Operator(rawValue: operatorRawValue),
            let test = PredicateStringRules.test(operatorType, options: NSComparisonPredicate.Options(rawValue: flags))
        else { return nil }
        tests[cacheKey] = test
        return test
    }
}

private let sqliteTransientDestructor = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)

private func foldFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 2, let values, let string = SQLiteFunctions.text(values[0]) else {
        sqlite3_result_null(context)
        return
    }
    let flags = sqlite3_value_int64(values[1])
    SQLiteFunctions.resultText(
        context, PredicateStringRules.fold(string, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0))
}

private func testFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    let operatorRawValue = UInt(bitPattern: sqlite3_user_data(context)) &- 1
    if operatorRawValue == NSComparisonPredicate.Operator.matches.rawValue {
        regexFunction(context: context, count: count, values: values)
        return
    }
    guard count == 3, let values, let left = SQLiteFunctions.text(values[0]), let right = SQLiteFunctions.text(values[1]),
        let test = SQLiteFunctions.test(operatorRawValue: operatorRawValue, flags: sqlite3_value_int64(values[2]))
    else {
        sqlite3_result_int(context, 0)
        return
    }
    sqlite3_result_int(context, test(left, right) ? 1 : 0)
}

/// `ocd_matches`: 0 or 1, or an SQL error for a pattern that is not a regular expression.
private func regexFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 3, let values, let left = SQLiteFunctions.text(values[0]), let right = SQLiteFunctions.text(values[1])
    else {
        sqlite3_result_int(context, 0)
        return
    }
    switch SQLiteFunctions.regexTest(flags: sqlite3_value_int64(values[2]))(left, right) {
    case .success(let matched):
        sqlite3_result_int(context, matched ? 1 : 0)
    case .failure(let error):
        SQLiteFunctions.recordFailure(error)
        sqlite3_result_error(context, error.localizedDescription, -1)
    }
}
