import Dispatch
import Foundation
import Hummingbird
import RawSQLite

/// The raw SQLite side, as the store does it: one connection for writes opened as the store
/// opens its own (`SQLITE_OPEN_NOMUTEX`, extended result codes, a 5 s busy timeout; WAL is the
/// file's) and used on one serial queue (the store: one connection under one lock, called on the
/// contexts' queues), and as many read-only connections as the store's readers (one per core,
/// two at least), each on a serial queue of its own, the lists handed to them in turn; never on
/// an event loop. Statements are prepared once per connection. Every statement is the text the
/// store's SQL trace shows (`OPENCOREDATA_SQLDEBUG=1`).
final class RawSQLiteBooks: RawBooks, @unchecked Sendable {
    // @unchecked: each connection and its statements are used only on its queue; `entity` is set
    // once, in init; `nextReader` only under `lock`.
    private let writer: RawSQLiteConnection
    private let readers: [RawSQLiteConnection]
    private let lock = NSLock()
    private var nextReader = 0
    private var entity: Int64 = 0

    static let select =
        "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZYEAR, t0.ZCREATEDAT, t0.ZRATING, t0.ZAUTHOR, t0.ZTITLE, t0.ZID "
        + "FROM ZBOOK t0 WHERE t0.ZYEAR > ? ORDER BY t0.ZYEAR DESC, t0.ZTITLE, t0.Z_PK LIMIT ? OFFSET ?"
    static let insert =
        "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZCREATEDAT, ZID, ZRATING, ZTITLE, ZYEAR) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String) throws {
        writer = try RawSQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE)
        readers = try (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            try RawSQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        }
        let found = try writer.rows("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", [.text("Book")]) { sqlite3_column_int64($0, 0) }
        guard let bookEntity = found.first else { throw Failure(description: "\(path) has no Book entity") }
        entity = bookEntity
    }

    /// The reader whose turn it is.
    private func reader() -> RawSQLiteConnection {
        lock.withLock {
            nextReader = (nextReader + 1) % readers.count
            return readers[nextReader]
        }
    }

    // MARK: - The routes' work, on the queue

    func books(after year: Int, limit: Int) async throws -> [BookDTO] {
        try await reader().onQueue { connection in
            try connection.rows(Self.select, [.int(Int64(year)), .int(Int64(limit)), .int(0)]) { row in
                BookDTO(
                    id: Self.uuid(row, 8), title: Self.text(row, 7), author: Self.text(row, 6),
                    year: Int(sqlite3_column_int64(row, 3)),
                    rating: sqlite3_column_type(row, 5) == SQLITE_NULL ? nil : sqlite3_column_double(row, 5),
                    createdAt: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(row, 4)))
            }
        }
    }

    func count() async throws -> Int {
        try await reader().onQueue { try $0.rows("SELECT COUNT(*) FROM ZBOOK t0", []) { Int(sqlite3_column_int64($0, 0)) }.first ?? 0 }
    }

    func create(_ new: NewBook) async throws -> BookDTO {
        // As the store's save: what `awakeFromInsert` sets, then the primary key allocated in a
        // transaction of its own, then a transaction that checks the uniqueness constraint on id,
        // inserts and keeps Z_MAX at least the new key.
        let book = BookDTO(id: UUID(), title: new.title, author: new.author, year: new.year, rating: new.rating, createdAt: Date())
        try await writer.onQueue { db in
            try db.execute("BEGIN IMMEDIATE")
            let max = try db.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(self.entity)]) { sqlite3_column_int64($0, 0) }
            let key = (max.first ?? 0) + 1
            try db.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(key), .int(self.entity)]) { _ in () }
            try db.execute("COMMIT")

            try db.execute("BEGIN IMMEDIATE")
            do {
                let clash = try db.rows("SELECT Z_PK, Z_ENT FROM ZBOOK WHERE ZID = ?", [.uuid(book.id)]) { _ in () }
                guard clash.isEmpty else { throw HTTPError(.conflict) }
                try db.rows(Self.insert, self.insertValues(key, book)) { _ in () }
                try db.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?", [.int(key), .int(self.entity), .int(key)]) { _ in () }
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
        return book
    }

    /// Fills the (empty) store with `count` of the benchmark's books in one transaction, keys
    /// allocated as the store allocates them.
    func seed(_ count: Int) throws {
        let db = writer
        try db.execute("BEGIN IMMEDIATE")
        let max = try db.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(entity)]) { sqlite3_column_int64($0, 0) }
        var key = max.first ?? 0
        for book in SeedBooks(count: count) {
            key += 1
            let dto = BookDTO(
                id: book.id, title: book.title, author: book.author, year: book.year, rating: book.rating, createdAt: book.createdAt)
            try db.rows(Self.insert, insertValues(key, dto)) { _ in () }
        }
        try db.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(key), .int(entity)]) { _ in () }
        try db.execute("COMMIT")
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The values of the store's INSERT, in its order.
    private func insertValues(_ key: Int64, _ book: BookDTO) -> [Value] {
        let rating: Value = book.rating.map { .double($0) } ?? .null
        let createdAt: Value = .double(book.createdAt.timeIntervalSinceReferenceDate)
        return [.int(key), .int(entity), .int(1), .text(book.author), createdAt, .uuid(book.id), rating, .text(book.title), .int(Int64(book.year))]
    }

    typealias Value = RawSQLiteConnection.Value

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

/// One connection of the raw SQLite side, used only on its serial queue.
final class RawSQLiteConnection: @unchecked Sendable {
    // @unchecked: `db` and `statements` are used only on `queue`.
    private let queue = DispatchQueue(label: "RawSQLiteConnection")
    private let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    enum Value {
        case int(Int64), double(Double), text(String), uuid(UUID), null
    }

    init(path: String, flags: Int32) throws {
        var pointer: OpaquePointer?
        guard sqlite3_open_v2(path, &pointer, flags | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let pointer else {
            throw RawSQLiteBooks.Failure(description: "can't open \(path)")
        }
        db = pointer
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5_000)
    }

    /// Runs `body` with this connection on its queue.
    func onQueue<T: Sendable>(_ body: @escaping @Sendable (RawSQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self) }) }
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    private func error(_ sql: String) -> RawSQLiteBooks.Failure {
        RawSQLiteBooks.Failure(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
    }

    /// Runs `sql` (prepared once, cached by its text) with `values` bound, reading each row with `read`.
    @discardableResult
    func rows<T>(_ sql: String, _ values: [Value], _ read: (OpaquePointer) -> T) throws -> [T] {
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

}
