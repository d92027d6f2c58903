import CSQLite
import OpenPredicate
import OpenSQLStore

/// SQL functions computing the values of predicate expressions as the in-memory engine does
/// (`FunctionCompiler`, `KeyValueReader`), registered on every connection:
///
/// | function | answers |
/// |---|---|
/// | `ocd_length(text)` | `text.length` and `length:(text)`: UTF-16 code units, as `NSString` counts |
/// | `ocd_uppercase(text)` | `uppercase:(text)`: Swift's `uppercased()` (`"Straße"` → `"STRASSE"`) |
/// | `ocd_lowercase(text)` | `lowercase:(text)`: Swift's `lowercased()` |
///
/// Each answers NULL for NULL and for values that are not text (nil in memory).
enum SQLiteValueFunctions {
    static func register(on handle: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var result = sqlite3_create_function_v2(handle, "ocd_length", 1, flags, nil, lengthFunction, nil, nil, nil)
        for (index, name) in ["ocd_uppercase", "ocd_lowercase"].enumerated() where result == SQLITE_OK {
            let userData = UnsafeMutableRawPointer(bitPattern: UInt(index) + 1)
            result = sqlite3_create_function_v2(handle, name, 1, flags, userData, caseFunction, nil, nil, nil)
        }
        return result
    }
}

private func lengthFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 1, let values, let string = SQLiteFunctions.text(values[0]) else {
        sqlite3_result_null(context)
        return
    }
    sqlite3_result_int64(context, Int64(string.utf16.count))
}

private func caseFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 1, let values, let string = SQLiteFunctions.text(values[0]) else {
        sqlite3_result_null(context)
        return
    }
    let uppercase = UInt(bitPattern: sqlite3_user_data(context)) == 1
    SQLiteFunctions.resultText(context, uppercase ? string.uppercased() : string.lowercased())
}
