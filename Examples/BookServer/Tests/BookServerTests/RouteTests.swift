import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BookServer

/// Every route, in process, on each store `StoreKind.tested` names.
@Suite("Routes")
struct RouteTests {
    /// Shown as skipped, with how to run them, when the PostgreSQL cases are left out.
    @Test(.enabled(if: TestServer.isEnabled, TestServer.skipMessage))
    func postgreSQLServer() {}

    @Test(arguments: StoreKind.tested)
    func health(_ kind: StoreKind) async throws {
        try await withApp(kind) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                let health = try decode(Health.self, response)
                #expect(health.status == "ok")
                #expect(health.books == 0)
            }
        }
    }

    /// POST, GET, PATCH, DELETE of one book, each answer read back by a later request.
    @Test(arguments: StoreKind.tested)
    func createReadUpdateDelete(_ kind: StoreKind) async throws {
        try await withApp(kind) { client in
            let before = Date().addingTimeInterval(-1)
            let created = try await client.create(NewBook(title: "Dune", author: "Frank Herbert", year: 1965, rating: 4.5))
            #expect(created.title == "Dune")
            #expect(created.author == "Frank Herbert")
            #expect(created.year == 1965)
            #expect(created.rating == 4.5)
            #expect(created.createdAt >= before.addingTimeInterval(-1) && created.createdAt <= Date().addingTimeInterval(1))

            try await client.execute(uri: "/books/\(created.id)", method: .get) { response in
                #expect(response.status == .ok)
                let read = try decode(BookDTO.self, response)
                #expect(read == created)
            }

            // A partial update: the year changes, the rating goes, the rest stays.
            let patch = #"{"year": 1966, "rating": null}"#
            try await client.execute(
                uri: "/books/\(created.id)", method: .patch, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: patch)
            ) { response in
                #expect(response.status == .ok)
                let updated = try decode(BookDTO.self, response)
                #expect(updated.year == 1966)
                #expect(updated.rating == nil)
                #expect(updated.title == "Dune")
            }
            // In a fresh request (a new context), from the store.
            try await client.execute(uri: "/books/\(created.id)", method: .get) { response in
                var expected = created
                expected.year = 1966
                expected.rating = nil
                let read = try decode(BookDTO.self, response)
                #expect(read == expected)
            }
            // A patch without `rating` leaves it; one with a number sets it.
            _ = try await client.execute(
                uri: "/books/\(created.id)", method: .patch, headers: [.contentType: "application/json"],
                body: try json(BookPatch(rating: .some(3))))
            _ = try await client.execute(
                uri: "/books/\(created.id)", method: .patch, headers: [.contentType: "application/json"],
                body: try json(BookPatch(title: "Dune (1st ed.)")))
            let listed = try await client.list()
            #expect(listed.map(\.title) == ["Dune (1st ed.)"])
            #expect(listed.map(\.rating) == [3])
            #expect(listed.map(\.year) == [1966])

            try await client.execute(uri: "/books/\(created.id)", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            for method in [HTTPRequest.Method.get, .delete] {
                try await client.execute(uri: "/books/\(created.id)", method: method) { response in
                    #expect(response.status == .notFound, "\(method) after DELETE")
                    #expect(errorMessage(response) == "no book with id \(created.id.uuidString)")
                }
            }
            try await client.execute(
                uri: "/books/\(created.id)", method: .patch, headers: [.contentType: "application/json"],
                body: try json(BookPatch(year: 2000))
            ) { response in
                #expect(response.status == .notFound)
            }
            #expect(try await client.list().isEmpty)
        }
    }

    /// The query string's predicate, sort, limit and offset, in SQL on both stores (the string
    /// operators run in memory on PostgreSQL, over the rows SQL selects).
    @Test(arguments: StoreKind.tested)
    func listFiltersSortsAndPages(_ kind: StoreKind) async throws {
        try await withApp(kind) { client in
            let books = [
                NewBook(title: "The Hobbit", author: "J. R. R. Tolkien", year: 1937, rating: 4.7),
                NewBook(title: "The Fellowship of the Ring", author: "J. R. R. Tolkien", year: 1954, rating: 4.8),
                NewBook(title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", year: 1969, rating: 4.2),
                NewBook(title: "The Dispossessed", author: "Ursula K. Le Guin", year: 1974),
                NewBook(title: "Neuromancer", author: "William Gibson", year: 1984, rating: 3.9),
                NewBook(title: "Kindred", author: "Octavia E. Butler", year: 1979, rating: 4.4),
            ]
            for book in books { try await client.create(book) }

            // No query: every book, by title.
            #expect(try await client.list().map(\.title) == books.map(\.title).sorted())
            #expect(
                try await client.list([("where", "year > 1950 AND author BEGINSWITH 'U'"), ("sort", "-year")]).map(\.title)
                    == ["The Dispossessed", "The Left Hand of Darkness"])
            #expect(
                try await client.list([("where", "rating >= 4.4 OR rating == nil"), ("sort", "author,-year")]).map(\.title)
                    == ["The Fellowship of the Ring", "The Hobbit", "Kindred", "The Dispossessed"])
            #expect(
                try await client.list([("where", #"title CONTAINS[c] "the" AND year + 10 < 1990"#), ("sort", "year")])
                    .map(\.year) == [1937, 1954, 1969, 1974])
            #expect(try await client.list([("where", "author IN {'William Gibson', 'Octavia E. Butler'}")]).count == 2)
            // As forms and `curl -G --data-urlencode` write a query: `+` for a space, `%2B` for a `+`.
            try await client.execute(uri: "/books?where=year+%2B+10+%3C+1950&sort=-year", method: .get) { response in
                let found = try decode([BookDTO].self, response)
                #expect(found.map(\.title) == ["The Hobbit"])
            }
            // Pages of two, by year.
            var pages: [[Int]] = []
            for offset in [0, 2, 4, 6] {
                pages.append(try await client.list([("sort", "year"), ("limit", "2"), ("offset", "\(offset)")]).map(\.year))
            }
            #expect(pages == [[1937, 1954], [1969, 1974], [1979, 1984], []])
        }
    }

    /// What a client gets wrong is a 400 (or 404) with a message, never a crash or a 500.
    @Test(arguments: StoreKind.tested)
    func badRequestsAreRefused(_ kind: StoreKind) async throws {
        try await withApp(kind) { client in
            try await client.create(NewBook(title: "Solaris", author: "Stanisław Lem", year: 1961))
            let cases: [(query: [(String, String)], message: String)] = [
                ([("where", "year >")], "Unable to parse the format string"),
                ([("where", "title == 'unterminated")], "Unable to parse the format string"),
                ([("where", "pages > 100")], "pages"),
                ([("where", "year > $MIN")], "'MIN'"),
                ([("where", "FUNCTION(title, 'reversed') == 'x'")], "FUNCTION"),
                ([("where", "title MATCHES '('")], "Can't do regex matching"),
                ([("sort", "pages")], "pages"),
                ([("sort", "year,,title")], "empty key"),
                ([("limit", "lots")], "limit"),
                ([("limit", "0")], "limit"),
                ([("offset", "-1")], "offset"),
            ]
            for (query, message) in cases {
                try await client.execute(uri: booksURI(query), method: .get) { response in
                    #expect(response.status == .badRequest, "\(query)")
                    #expect(errorMessage(response).contains(message), "\(query): \(errorMessage(response))")
                }
            }
            let bodies = [
                #"{"title": "No author", "year": 2000}"#,
                #"{"title": "", "author": "A", "year": 2000}"#,
                #"{"title": "T", "author": "A", "year": 99999999999}"#,
                #"{"title": "T", "author": "A", "year": 2000, "rating": 7}"#,
                "not json",
            ]
            for body in bodies {
                try await client.execute(
                    uri: "/books", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == .badRequest, "\(body): \(String(buffer: response.body))")
                }
            }
            try await client.execute(uri: "/books/not-a-uuid", method: .get) { response in
                #expect(response.status == .notFound)
            }
            // Nothing was written, and the server still answers.
            #expect(try await client.list().map(\.title) == ["Solaris"])
        }
    }

    /// 50 creates at once, each in its own background context: all saved, with distinct ids.
    @Test(arguments: StoreKind.tested)
    func concurrentCreatesAllLand(_ kind: StoreKind) async throws {
        try await withApp(kind) { client in
            let created = try await withThrowingTaskGroup(of: BookDTO.self) { group in
                for number in 1...50 {
                    group.addTask {
                        try await client.create(NewBook(title: "Volume \(number)", author: "Anon", year: 1900 + number))
                    }
                }
                return try await group.reduce(into: [BookDTO]()) { $0.append($1) }
            }
            #expect(created.count == 50)
            #expect(Set(created.map(\.id)).count == 50)
            let listed = try await client.list([("sort", "year"), ("limit", "1000")])
            #expect(listed.map(\.year) == Array(1901...1950))
            #expect(Set(listed.map(\.id)) == Set(created.map(\.id)))
        }
    }

    /// A new application on the same store (a restart, or a second server on PostgreSQL) sees
    /// what the first one saved.
    @Test(arguments: StoreKind.tested)
    func booksOutliveTheApplication(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        defer { store.remove() }
        let saved = LockedValue<BookDTO?>(nil)
        try await runApp(on: store.location) { client in
            saved.set(try await client.create(NewBook(title: "Kindred", author: "Octavia E. Butler", year: 1979)))
        }
        let book = try #require(saved.get())
        try await runApp(on: store.location) { client in
            try await client.execute(uri: "/books/\(book.id)", method: .get) { response in
                let read = try decode(BookDTO.self, response)
                #expect(read == book)
            }
        }
    }
}

/// A value shared with a `@Sendable` closure.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
