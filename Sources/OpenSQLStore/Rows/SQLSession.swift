import Foundation
import OpenStoreCore

/// A database connection the layout's readers and writers (`SQLRowReader`, `SQLRowWriter`,
/// `SQLRowDecoder`, `AppleSQLPrimaryKeys`) run their SQL on: SQLite's `SQLiteConnection`, or a
/// PostgreSQL store's session. Statements are written once, with `?` placeholders and the
/// layout's names; the session turns them into its dialect (`SQLDialect.finish`).
package protocol SQLSession {
    associatedtype Row: SQLRow
    /// The SQL the database speaks.
    var dialect: SQLDialect { get }
    /// Runs one statement with `arguments` bound; the number of rows it inserted, changed or
    /// deleted.
    @discardableResult func run(_ sql: String, _ arguments: [StoreValue]) throws -> Int
    /// Runs an insert of `rows`, binding their values in placeholder order (see
    /// `SQLInsertRows`). **Default:** `run(_:_:)` with `rows.values()`.
    func runInsert(_ sql: String, _ rows: SQLInsertRows) throws
    /// Runs an `UPDATE` or `DELETE` of `rows` rows that should be there; whether it changed that
    /// many. **Default:** `run(_:_:) == rows`. A session that answers before the database has
    /// (PostgreSQL's planned save) answers true and checks the count when the answer comes.
    func runExpectingChanges(_ sql: String, _ arguments: [StoreValue], rows: Int) throws -> Bool
    /// Runs a query with `arguments` bound, calling `row` for each result row, in order; a row
    /// is valid only during its call.
    func query(_ sql: String, _ arguments: [StoreValue], row: (Row) throws -> Void) throws
    /// An `NSPersistentStoreOperationError` naming the store, with `reason`.
    func operationError(_ reason: String) -> Error
    /// An `NSPersistentStoreSaveError` naming the store: the primary keys a save needs would
    /// pass `Int64.max`.
    func keysExhaustedError(_ reason: String) -> Error
}

extension SQLSession {
    package func runInsert(_ sql: String, _ rows: SQLInsertRows) throws {
        try run(sql, rows.values())
    }

    package func runExpectingChanges(_ sql: String, _ arguments: [StoreValue], rows: Int) throws -> Bool {
        try run(sql, arguments) == rows
    }
}

/// One result row of a `SQLSession` query, read by column index (from 0).
///
/// Public only for `SQLRowDecoder`'s `decode` methods (see there): no product holds this module.
public protocol SQLRow {
    func isNull(at index: Int32) -> Bool
    /// The column as an integer (0 for NULL).
    func int64(at index: Int32) -> Int64
    func string(at index: Int32) -> String?
    /// The column as a floating-point number (0 for NULL).
    func double(at index: Int32) -> Double
    func data(at index: Int32) -> Data?
    /// The column as a value of an attribute of `kind` (`.null` for NULL).
    func value(at index: Int32, kind: AttributeKind) -> StoreValue
    /// How many columns the row has.
    var columnCount: Int32 { get }
    /// The column as the database holds it, whatever attribute it stores (a keyset page's
    /// position is read so).
    func storedValue(at index: Int32) -> StoreValue
}
