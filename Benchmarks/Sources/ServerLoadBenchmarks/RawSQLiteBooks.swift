import Dispatch
import Foundation
import Hummingbird
import RawSQLite

/// The raw SQLite side: one connection opened as the store opens its own (`SQLITE_OPEN_NOMUTEX`,
/// extended result codes, a 5 s busy timeout; WAL is the file's), its statements prepared once,
/// used on one serial queue (the store: one connection under one lock, called on the contexts'
/// queues), never on an event loop. Every statement is the text the store's SQL trace shows
/// (`OPENCOREDATA_SQLDEBUG=1`).
final class RawSQLiteBooks: RawBooks, @unchecked Sendable {
    // @unchecked: the connection and its statements are used only on `queue`.
    private let queue = DispatchQueue(label: "RawSQLiteBooks")
    private let db: OpaquePointer
    private var entity: Int64  // set once, in init
    private var statements: [String: OpaquePointer] = [:]

    static let select =
        "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZYEAR, t0.ZCREATEDAT, t0.ZRATING, t0.ZAUTHOR, t0.ZTITLE, t0.ZID "
        + "FROM ZBOOK t0 WHERE t0.ZYEAR > ? ORDER BY t0.ZYEAR DESC, t0.ZTITLE, t0.Z_PK LIMIT ? OFFSET ?"
    static let insert =
        "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZCREATEDAT, ZID, ZRATING, ZTITLE, ZYEAR) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String) throws {
        var pointer: OpaquePointer?
        guard sqlite3_open_v2(path, &pointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let pointer else {
            throw Failure(description: "can't open \(path)")
        }
        db = pointer
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5_000)
        entity = 0
        let found = try rows("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", [.text("Book")]) { sqlite3_column_int64($0, 0) }
        guard let bookEntity = found.first else { throw Failure(description: "\(path) has no Book entity") }
        entity = bookEntity
    }

    // MARK: - The routes' work, on the queue

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    func books(after year: Int, limit: Int) async throws -> [BookDTO] {
        try await onQueue {
            try self.rows(Self.select, [.int(Int64(year)), .int(Int64(limit)), .int(0)]) { row in
                BookDTO(
                    id: Self.uuid(row, 8), title: Self.text(row, 7), author: Self.text(row, 6),
                    year: Int(sqlite3_column_int64(row, 3)),
                    rating: sqlite3_column_type(row, 5) == SQLITE_NULL ? nil : sqlite3_column_double(row, 5),
                    createdAt: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(row, 4)))
            }
        }
    }

    func count() async throws -> Int {
        try await onQueue { try self.rows("SELECT COUNT(*) FROM ZBOOK t0", []) { Int(sqlite3_column_int64($0, 0)) }.first ?? 0 }
    }

    func create(_ new: NewBook) async throws -> BookDTO {
        // As the store's save: what `awakeFromInsert` sets, then the primary key allocated in a
        // transaction of its own, then a transaction that checks the uniqueness constraint on id,
        // inserts and keeps Z_MAX at least the new key.
        let book = BookDTO(id: UUID(), title: new.title, author: new.author, year: new.year, rating: new.rating, createdAt: Date())
        try await onQueue {
            try self.execute("BEGIN IMMEDIATE")
            let max = try self.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(self.entity)]) { sqlite3_column_int64($0, 0) }
            let key = (max.first ?? 0) + 1
            try self.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(key), .int(self.entity)]) { _ in () }
            try self.execute("COMMIT")

            try self.execute("BEGIN IMMEDIATE")
            do {
                let clash = try self.rows("SELECT Z_PK, Z_ENT FROM ZBOOK WHERE ZID = ?", [.uuid(book.id)]) { _ in () }
                guard clash.isEmpty else { throw HTTPError(.conflict) }
                try self.rows(Self.insert, self.insertValues(key, book)) { _ in () }
                try self.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?", [.int(key), .int(self.entity), .int(key)]) { _ in () }
                try self.execute("COMMIT")
            } catch {
                try? self.execute("ROLLBACK")
                throw error
            }
        }
        return book
    }

    /// Fills the (empty) store with `count` of the benchmark's books in one transaction, keys
    /// allocated as the store allocates them.
    func seed(_ count: Int) throws {
        try execute("BEGIN IMMEDIATE")
        let max = try rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(entity)]) { sqlite3_column_int64($0, 0) }
        var key = max.first ?? 0
        for book in SeedBooks(count: count) {
            key += 1
            let dto = BookDTO(
                id: book.id, title: book.title, author: book.author, year: book.year, rating: book.rating, createdAt: book.createdAt)
            try rows(Self.insert, insertValues(key, dto)) { _ in () }
        }
        try rows("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(key), .int(entity)]) { _ in () }
        try execute("COMMIT")
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The values of the store's INSERT, in its order.
    private func insertValues(_ key: Int64, _ book: BookDTO) -> [Value] {
        let rating: Value = book.rating.map { .double($0) } ?? .null
        let createdAt: Value = .double(book.createdAt.timeIntervalSinceReferenceDate)
        return [.int(key), .int(entity), .int(1), .text(book.author), createdAt, .uuid(book.id), rating, .text(book.title), .int(Int64(book.year))]
    }

    // MARK: - The C API

    enum Value {
        case int(Int64), double(Double), text(String), uuid(UUID), null
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    private func error(_ sql: String) -> Failure {
        Failure(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
    }

    /// Runs `sql` (prepared once, cached by its text) with `values` bound, reading each row with `read`.
    @discardableResult
    private func rows<T>(_ sql: String, _ values: [Value], _ read: (OpaquePointer) -> T) throws -> [T] {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK, let prepared else {
                throw error(sql)
            }
            statements[sql] = prepared
            statement = prepared
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .int(let value): sqlite3_bind_int64(statement, index, value)
            case .double(let value): sqlite3_bind_double(statement, index, value)
            case .text(let value): sqlite3_bind_text(statement, index, value, -1, Self.transient)
            case .uuid(let value):
                withUnsafeBytes(of: value.uuid) { bytes in
                    _ = sqlite3_bind_blob(statement, index, bytes.baseAddress, 16, Self.transient)
                }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        var result: [T] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: result.append(read(statement))
            case SQLITE_DONE: return result
            default: throw error(sql)
            }
        }
    }

    private static func text(_ row: OpaquePointer, _ column: Int32) -> String {
        sqlite3_column_text(row, column).map { String(cString: $0) } ?? ""
    }

    private static func uuid(_ row: OpaquePointer, _ column: Int32) -> UUID {
        var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).uuid
        if let blob = sqlite3_column_blob(row, column), sqlite3_column_bytes(row, column) == 16 {
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: 16)) }
        }
        return UUID(uuid: uuid)
    }
}
