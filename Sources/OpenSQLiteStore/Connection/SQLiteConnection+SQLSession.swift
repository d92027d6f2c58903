import Foundation
import OpenSQLStore
import OpenStoreCore

extension SQLiteStatement: SQLRow {}

extension SQLiteConnection: SQLSession {
    package var dialect: SQLDialect { .sqlite }

    package func query(_ sql: String, _ arguments: [StoreValue], row: (SQLiteStatement) throws -> Void) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        if !arguments.isEmpty { try statement.bind(arguments) }
        while try statement.step() { try row(statement) }
    }

    package func operationError(_ reason: String) -> Error {
        SQLStoreError.operation(reason, path: url.path)
    }

    package func keysExhaustedError(_ reason: String) -> Error {
        SQLStoreError.keysExhausted("Can't save to \(url.path): " + reason, path: url.path)
    }
}
