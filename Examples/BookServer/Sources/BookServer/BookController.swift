import Foundation
import Hummingbird

/// The `/books` routes: JSON in and out, each handler's store work in a background context
/// (see `BookStore`).
struct BookController<Context: RequestContext>: Sendable {
    let store: BookStore

    func addRoutes(to group: RouterGroup<Context>) {
        group
            .get(use: list)
            .post(use: create)
            .get(":id", use: show)
            .patch(":id", use: update)
            .delete(":id", use: delete)
    }

    /// `GET /books?where=year > 1950&sort=-year,title&limit=20&offset=0`
    @Sendable func list(_ request: Request, context: Context) async throws -> [BookDTO] {
        let query = try BookQuery(query: request.uri.query)
        return try await store.books(matching: query)
    }

    /// `GET /books/:id`
    @Sendable func show(_ request: Request, context: Context) async throws -> BookDTO {
        let id = try Self.id(context)
        guard let book = try await store.book(id) else { throw Self.notFound(id) }
        return book
    }

    /// `POST /books` with a `NewBook`: 201 Created and the book.
    @Sendable func create(_ request: Request, context: Context) async throws -> EditedResponse<BookDTO> {
        let new = try await request.decode(as: NewBook.self, context: context)
        try BookRules.check(title: new.title, author: new.author, year: new.year, rating: .some(new.rating))
        let book = try await store.create(new)
        return EditedResponse(status: .created, headers: [.location: "/books/\(book.id.uuidString)"], response: book)
    }

    /// `PATCH /books/:id` with a `BookPatch`: the changed book.
    @Sendable func update(_ request: Request, context: Context) async throws -> BookDTO {
        let id = try Self.id(context)
        let patch = try await request.decode(as: BookPatch.self, context: context)
        try BookRules.check(title: patch.title, author: patch.author, year: patch.year, rating: patch.rating)
        guard let book = try await store.update(id, with: patch) else { throw Self.notFound(id) }
        return book
    }

    /// `DELETE /books/:id`: 204 No Content.
    @Sendable func delete(_ request: Request, context: Context) async throws -> HTTPResponse.Status {
        let id = try Self.id(context)
        guard try await store.delete(id) else { throw Self.notFound(id) }
        return .noContent
    }

    /// The `:id` of the path; a path that is not a UUID names no book.
    private static func id(_ context: Context) throws(HTTPError) -> UUID {
        guard let id = context.parameters.get("id", as: UUID.self) else {
            throw HTTPError(.notFound, message: "no book at this path: the id is not a UUID")
        }
        return id
    }

    private static func notFound(_ id: UUID) -> HTTPError {
        HTTPError(.notFound, message: "no book with id \(id.uuidString)")
    }
}
