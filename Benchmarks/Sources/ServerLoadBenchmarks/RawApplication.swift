import BookServer
import Foundation
import Hummingbird
import Logging

// The raw servers' HTTP side: the example's routes and JSON shapes on the same Hummingbird, so
// that the two servers differ only in what runs between the JSON and the database.

/// A book as the example's API shows it (the example's `BookDTO`, field for field).
struct BookDTO: Codable, Sendable, ResponseEncodable {
    var id: UUID
    var title: String
    var author: String
    var year: Int
    var rating: Double?
    var createdAt: Date
}

/// The body of `POST /books` (the example's `NewBook`).
struct NewBook: Codable, Sendable {
    var title: String
    var author: String
    var year: Int
    var rating: Double?
}

/// The one query shape the raw servers answer: `where=year > N&sort=-year,title&limit=L`.
struct YearQuery: Sendable {
    var year: Int
    var limit = 100

    /// Reads the query string as the example's `BookQuery` does (`+` a space, `%XX` a byte), then
    /// accepts only `year > N` sorted by `-year,title`.
    init(query: String?) throws(HTTPError) {
        var parameters: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            parameters[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        let format = (parameters["where"] ?? "").trimmingCharacters(in: .whitespaces)
        guard format.hasPrefix("year >"), let year = Int(format.dropFirst(6).trimmingCharacters(in: .whitespaces)) else {
            throw HTTPError(.badRequest, message: "where: only 'year > N' here")
        }
        guard parameters["sort"] == "-year,title" else { throw HTTPError(.badRequest, message: "sort: only -year,title here") }
        self.year = year
        if let limit = parameters["limit"] {
            guard let value = Int(limit), (1...1_000).contains(value) else {
                throw HTTPError(.badRequest, message: "limit must be a number from 1 to 1000, not '\(limit)'")
            }
            self.limit = value
        }
    }
}

/// The checks of the example's `BookRules` on a new book.
func checkNewBook(_ new: NewBook) throws(HTTPError) {
    if new.title.trimmingCharacters(in: .whitespaces).isEmpty {
        throw HTTPError(.badRequest, message: "title must not be empty")
    }
    if new.author.trimmingCharacters(in: .whitespaces).isEmpty {
        throw HTTPError(.badRequest, message: "author must not be empty")
    }
    if Int32(exactly: new.year) == nil {
        throw HTTPError(.badRequest, message: "year \(new.year) is out of range")
    }
    if let rating = new.rating, !(0...5).contains(rating) {
        throw HTTPError(.badRequest, message: "rating must be between 0 and 5, not \(rating)")
    }
}

/// What a raw server runs against its database.
protocol RawBooks: Sendable {
    /// The first `limit` books with a year after `year`, by year descending then title (then primary key).
    func books(after year: Int, limit: Int) async throws -> [BookDTO]
    /// How many books there are.
    func count() async throws -> Int
    /// Inserts the book (a new id and creation date), allocating its primary key as the store does.
    func create(_ new: NewBook) async throws -> BookDTO
}

struct Health: ResponseEncodable {
    var status: String
    var books: Int
}

/// The raw server for `store`: `GET /health`, `GET /books` and `POST /books` as the example has them.
func buildRawApplication(store: StoreLocation, port: Int) async throws -> some ApplicationProtocol {
    let books: any RawBooks
    switch store {
    case .sqlite(let url): books = try RawSQLiteBooks(path: url.path)
    case .postgreSQL(let url): books = try await RawPostgresBooks(url: url)
    }
    var logger = Logger(label: "RawBookServer")
    logger.logLevel = .warning
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: LogRequestsMiddleware(.debug))  // as the example's router, logging nothing at .warning
    router.get("/health") { _, _ -> Health in
        Health(status: "ok", books: try await books.count())
    }
    router.get("/books") { request, _ -> [BookDTO] in
        let query = try YearQuery(query: request.uri.query)
        return try await books.books(after: query.year, limit: query.limit)
    }
    router.post("/books") { request, context -> EditedResponse<BookDTO> in
        let new = try await request.decode(as: NewBook.self, context: context)
        try checkNewBook(new)
        let book = try await books.create(new)
        return EditedResponse(status: .created, headers: [.location: "/books/\(book.id.uuidString)"], response: book)
    }
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "RawBookServer"),
        logger: logger)
}

/// The benchmark's books: deterministic titles, authors, years 1900–2024 and ratings (a fifth
/// without), so every store holds the same rows.
struct SeedBooks: Sequence, IteratorProtocol {
    static let authors = [
        "Austen", "Borges", "Calvino", "Dickens", "Eco", "Faulkner", "García Márquez", "Hugo", "Ishiguro", "Joyce",
        "Kafka", "Le Guin", "Mann", "Nabokov", "Orwell", "Pessoa", "Queneau", "Rushdie", "Saramago", "Tolstoy",
    ]
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var index = 0
    let count: Int

    init(count: Int) {
        self.count = count
    }

    mutating func next() -> (id: UUID, title: String, author: String, year: Int, rating: Double?, createdAt: Date)? {
        guard index < count else { return nil }
        index += 1
        func random() -> UInt64 {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let year = 1900 + Int(random() % 125)
        let rating: Double? = random() % 5 == 0 ? nil : Double(random() % 11) / 2
        let author = Self.authors[Int(random() % UInt64(Self.authors.count))]
        var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: random()) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let id = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                             bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        let createdAt = Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(index) * 60)
        return (id, "Book \(index) of \(author)", author, year, rating, createdAt)
    }
}
