import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Synchronization

/// The raw PostgreSQL side: a `PostgresClient` configured as the store's pool (at most 8
/// connections, no TLS, `search_path` the URL's schema as a startup parameter, on NIO's shared
/// event loops), called straight from the handlers. Every statement is the text the server logged
/// for the store (`log_statement = all`); primary keys come in blocks of 128, as the store reserves
/// them (`PostgreSQLRowStore.keyBlockSize`).
final class RawPostgresBooks: RawBooks {
    private let client: PostgresClient
    private let entity: Int64
    private let logger: Logger
    /// The keys reserved and not yet handed out.
    private let reservedKeys = Mutex<ClosedRange<Int64>?>(nil)
    static let keyBlockSize: Int64 = 128

    static let select =
        #"SELECT t0."Z_PK", t0."Z_ENT", t0."Z_OPT", t0."ZYEAR", t0."ZCREATEDAT", t0."ZRATING", t0."ZAUTHOR", t0."ZTITLE", t0."ZID" "#
        + #"FROM "ZBOOK" t0 WHERE t0."ZYEAR" > $1 ORDER BY t0."ZYEAR" DESC NULLS LAST, t0."ZTITLE" NULLS FIRST, t0."Z_PK" LIMIT $2 OFFSET $3"#
    static let insert =
        #"INSERT INTO "ZBOOK" ("Z_PK", "Z_ENT", "Z_OPT", "ZAUTHOR", "ZCREATEDAT", "ZID", "ZRATING", "ZTITLE", "ZYEAR") "#
        + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
    static let allocate = #"UPDATE "Z_PRIMARYKEY" SET "Z_MAX" = "Z_MAX" + $1 WHERE "Z_ENT" = $2 RETURNING "Z_MAX""#

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(url: URL) async throws {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = parts.host else {
            throw Failure(description: "not a postgres URL: \(url)")
        }
        let schema = parts.queryItems?.first { $0.name == "schema" }?.value ?? "public"
        var configuration = PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: parts.user ?? "postgres", password: parts.password,
            database: parts.path.split(separator: "/").first.map(String.init), tls: .disable)
        configuration.options.maximumConnections = 8
        configuration.options.additionalStartupParameters = [("search_path", "\"\(schema)\"")]
        var logger = Logger(label: "RawPostgresBooks")
        logger.logLevel = .critical
        self.logger = logger
        let client = PostgresClient(configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        self.client = client
        Task { await client.run() }
        var entity: Int64?
        for try await (value) in try await client.query(
            #"SELECT "Z_ENT" FROM "Z_PRIMARYKEY" WHERE "Z_NAME" = \#("Book")"#, logger: logger
        ).decode(Int64.self) {
            entity = value
        }
        guard let entity else { throw Failure(description: "\(schema) has no Book entity") }
        self.entity = entity
    }

    func books(after year: Int, limit: Int) async throws -> [BookDTO] {
        var binds = PostgresBindings()
        binds.append(Int64(year))
        binds.append(Int64(limit))
        binds.append(Int64(0))
        let rows = try await client.query(PostgresQuery(unsafeSQL: Self.select, binds: binds), logger: logger)
        var books: [BookDTO] = []
        for try await (_, _, _, year, createdAt, rating, author, title, id) in rows.decode(
            (Int64, Int64, Int64, Int64, Double, Double?, String, String, UUID).self)
        {
            books.append(
                BookDTO(
                    id: id, title: title, author: author, year: Int(year), rating: rating,
                    createdAt: Date(timeIntervalSinceReferenceDate: createdAt)))
        }
        return books
    }

    func count() async throws -> Int {
        for try await count in try await client.query(#"SELECT COUNT(*) FROM "ZBOOK" t0"#, logger: logger).decode(Int64.self) {
            return Int(count)
        }
        return 0
    }

    func create(_ new: NewBook) async throws -> BookDTO {
        // As the store's save: the key allocated by one statement of its own, then a transaction
        // that checks the uniqueness constraint on id and inserts.
        let book = BookDTO(id: UUID(), title: new.title, author: new.author, year: new.year, rating: new.rating, createdAt: Date())
        let key = try await nextKey()
        try await client.withConnection { connection in
            try await self.execute("BEGIN ISOLATION LEVEL READ COMMITTED", on: connection)
            do {
                var check = PostgresBindings()
                check.append(book.id)
                var clash = false
                for try await _ in try await connection.query(
                    PostgresQuery(unsafeSQL: #"SELECT "Z_PK", "Z_ENT" FROM "ZBOOK" WHERE "ZID" = $1"#, binds: check), logger: self.logger)
                {
                    clash = true
                }
                guard !clash else { throw HTTPError(.conflict) }
                try await self.insert(key, book, on: connection)
                try await self.execute("COMMIT", on: connection)
            } catch {
                try? await self.execute("ROLLBACK", on: connection)
                throw error
            }
        }
        return book
    }

    /// Fills the (empty) schema with `count` of the benchmark's books in one transaction.
    func seed(_ count: Int) async throws {
        let last = try await allocateKeys(Int64(count))
        let books = Array(SeedBooks(count: count)).enumerated().map { offset, book in
            (last - Int64(count) + 1 + Int64(offset),
             BookDTO(id: book.id, title: book.title, author: book.author, year: book.year, rating: book.rating, createdAt: book.createdAt))
        }
        try await client.withConnection { connection in
            try await self.execute("BEGIN", on: connection)
            for chunk in stride(from: 0, to: books.count, by: 500) {
                try await self.insert(Array(books[chunk..<min(chunk + 500, books.count)]), on: connection)
            }
            try await self.execute("COMMIT", on: connection)
            try await self.execute(#"ANALYZE "ZBOOK""#, on: connection)
        }
    }

    // MARK: - Statements

    /// A key of the reserved block, reserving a new block when it is used up.
    private func nextKey() async throws -> Int64 {
        if let key = takeKey() { return key }
        let last = try await allocateKeys(Self.keyBlockSize)
        let block = (last - Self.keyBlockSize + 1)...last
        // Two requests may reserve a block at once: the later one's is kept, the other's rest left
        // unused (gaps, as the store leaves).
        reservedKeys.withLock { $0 = block.count > 1 ? (block.lowerBound + 1)...block.upperBound : nil }
        return block.lowerBound
    }

    private func takeKey() -> Int64? {
        reservedKeys.withLock { range in
            guard let current = range else { return nil }
            range = current.count > 1 ? (current.lowerBound + 1)...current.upperBound : nil
            return current.lowerBound
        }
    }

    private func allocateKeys(_ count: Int64) async throws -> Int64 {
        var binds = PostgresBindings()
        binds.append(count)
        binds.append(entity)
        for try await max in try await client.query(PostgresQuery(unsafeSQL: Self.allocate, binds: binds), logger: logger)
            .decode(Int64.self)
        {
            return max
        }
        throw Failure(description: "no Z_PRIMARYKEY row for entity \(entity)")
    }

    private func execute(_ sql: String, on connection: PostgresConnection) async throws {
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {}
    }

    /// The store's INSERT of one book.
    private func insert(_ key: Int64, _ book: BookDTO, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        binds.append(key)
        binds.append(entity)
        binds.append(Int64(1))
        binds.append(book.author)
        binds.append(book.createdAt.timeIntervalSinceReferenceDate)
        binds.append(book.id)
        if let rating = book.rating { binds.append(rating) } else { binds.appendNull() }
        binds.append(book.title)
        binds.append(Int64(book.year))
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: Self.insert, binds: binds), logger: logger) {}
    }

    /// The seed's INSERTs, pipelined in chunks.
    private func insert(_ books: [(Int64, BookDTO)], on connection: PostgresConnection) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (key, book) in books {
                group.addTask { try await self.insert(key, book, on: connection) }
            }
            try await group.waitForAll()
        }
    }
}
