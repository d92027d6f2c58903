import CSQLite
import OpenPredicate
import OpenSQLStore

/// The collations the SQL compiler sorts strings with, registered on every connection: the
/// localized selectors of sort descriptors, compared by the very Swift code the in-memory sorter
/// uses (`PredicateSortRules`), so that both stores order strings alike.
///
/// | collation | selector |
/// |---|---|
/// | `ocd_localized` | `localizedCompare:` |
/// | `ocd_localized_ci` | `localizedCaseInsensitiveCompare:` |
/// | `ocd_localized_standard` | `localizedStandardCompare:` |
///
/// SQLite never passes NULL to a collation (NULLs sort first, as the in-memory sorter puts nil);
/// the compiler applies them to string columns only (other values sort with `compare:`, as in
/// memory).
enum SQLiteCollations {
    /// (collation name, selector), in user-data order (index + 1): the compiler's names.
    static let collations = SQLDialect.localizedCollations

    /// Registers the collations on a connection.
    static func register(on handle: OpaquePointer) -> Int32 {
        var result = SQLITE_OK
        for (index, collation) in collations.enumerated() where result == SQLITE_OK {
            let userData = UnsafeMutableRawPointer(bitPattern: UInt(index) + 1)
            result = sqlite3_create_collation_v2(handle, collation.name, SQLITE_UTF8, userData, collate, nil)
        }
        return result
    }
}

private func collate(
    _ userData: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?, _ rightCount: Int32,
    _ right: UnsafeRawPointer?
) -> Int32 {
    let index = Int(UInt(bitPattern: userData) &- 1)
    guard SQLiteCollations.collations.indices.contains(index) else { return 0 }
    func text(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
    let result = PredicateSortRules.compare(
        text(left, leftCount), text(right, rightCount), selector: SQLiteCollations.collations[index].selector)
    switch result {
    case .orderedAscending: return -1
    case .orderedDescending: return 1
    case .orderedSame: return 0
    }
}
