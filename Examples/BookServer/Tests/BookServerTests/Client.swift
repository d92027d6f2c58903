import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BookServer

/// Runs `test` with a client of a new application on a fresh store of `kind`, in process
/// (HummingbirdTesting's `.router`: requests go straight to the router, no socket), then
/// removes the store.
func withApp(
    _ kind: StoreKind, sourceLocation: SourceLocation = #_sourceLocation,
    _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    let store = try TestStore(kind)
    defer { store.remove() }
    try await runApp(on: store.location, test)
}

/// Runs `test` with a client of a new application on the store at `location`.
func runApp(on location: StoreLocation, _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void)
    async throws
{
    let app = try await buildApplication(AppConfiguration(store: location, logLevel: .warning))
    try await app.test(.router, test)
}

/// The API's JSON: dates in ISO 8601, as Hummingbird's request context writes them.
let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}()

/// A request body of `value` as JSON.
func json(_ value: some Encodable) throws -> ByteBuffer {
    ByteBuffer(bytes: try JSONEncoder().encode(value))
}

/// The body of `response` read as `type`, failing the test with the body when it does not decode.
func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    let body = String(buffer: response.body)
    do {
        return try decoder.decode(type, from: Data(body.utf8))
    } catch {
        Issue.record("\(response.status) \(body) is not a \(type): \(error)")
        throw error
    }
}

/// The `message` of Hummingbird's error body, `{"error":{"message":"…"}}`.
func errorMessage(_ response: TestResponse) -> String {
    struct ErrorBody: Decodable {
        struct Detail: Decodable { var message: String }
        var error: Detail
    }
    return (try? decoder.decode(ErrorBody.self, from: Data(String(buffer: response.body).utf8)))?.error.message
        ?? String(buffer: response.body)
}

/// `/books` with a query string, each value percent-encoded (all but RFC 3986's unreserved
/// characters, so a predicate's `+`, `&` and `=` arrive as written).
func booksURI(_ items: [(String, String)]) -> String {
    guard !items.isEmpty else { return "/books" }
    let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    let query = items.map { name, value in
        name + "=" + (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value)
    }
    return "/books?" + query.joined(separator: "&")
}

extension TestClientProtocol {
    /// `POST /books`, expecting 201 and a book.
    @discardableResult
    func create(_ new: NewBook, sourceLocation: SourceLocation = #_sourceLocation) async throws -> BookDTO {
        try await execute(uri: "/books", method: .post, headers: [.contentType: "application/json"], body: json(new)) {
            response in
            #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
            return try decode(BookDTO.self, response)
        }
    }

    /// `GET /books?…`, expecting 200 and a list.
    func list(_ items: [(String, String)] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> [BookDTO]
    {
        try await execute(uri: booksURI(items), method: .get) { response in
            #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
            return try decode([BookDTO].self, response)
        }
    }
}
