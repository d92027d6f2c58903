import CoreData
import Foundation
import Hummingbird
import Logging

/// The app's Core Data stack: one `NSPersistentContainer` for the process, shared by every
/// request, and the store work of each route.
///
/// Every method runs its work in a new background context (`performBackgroundTask`), on that
/// context's queue: the request's task waits without blocking a thread, and no Core Data call
/// runs on an event loop. Objects stay in their closure; `BookDTO`s come out.
struct BookStore: Sendable {
    /// The stack. `NSPersistentContainer` is `Sendable`: keep one, share it.
    let container: NSPersistentContainer
    /// Where the store is.
    let location: StoreLocation

    /// The model of `Books.xcdatamodeld`, loaded once for the process (every container shares it).
    static let model: NSManagedObjectModel? = Bundle.module.url(forResource: "Books", withExtension: "xcdatamodeld")
        .flatMap(NSManagedObjectModel.init(contentsOf:))

    /// Opens the store at `location` (creating it when missing); the store logs its SQL
    /// through `logger`, if given.
    /// - Throws: The store's error (a file that is not a store, a server that does not answer,
    ///   a store of another model), or `ModelMissing` when the bundle lacks the model.
    static func open(_ location: StoreLocation, logger: Logger? = nil) async throws -> BookStore {
        guard let model else { throw ModelMissing() }
        let container = NSPersistentContainer(name: "Books", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: location.url)
        description.type = location.storeType
        description.logger = logger
        // Added on a background queue: connecting to a server, or migrating a file, blocks no
        // thread of Swift's concurrency pool.
        description.shouldAddStoreAsynchronously = true
        container.persistentStoreDescriptions = [description]
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            container.loadPersistentStores { _, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
        }
        return BookStore(container: container, location: location)
    }

    /// The bundle has no `Books.xcdatamodeld`.
    struct ModelMissing: Error, CustomStringConvertible {
        var description: String { "Books.xcdatamodeld is missing from the BookServer bundle" }
    }

    // MARK: - Reading

    /// The books matching `query`, in its order, one page of them.
    /// - Throws: `400 Bad Request` with the library's message for a predicate that does not
    ///   parse or has a `$VARIABLE`, or a predicate or sort key naming a key the model lacks (or
    ///   that no store can run); the store's error otherwise.
    func books(matching query: BookQuery) async throws -> [BookDTO] {
        try await container.performBackgroundTask { context in
            let request: NSFetchRequest<Book> = Book.fetchRequest()
            if let format = query.predicateFormat {
                do {
                    // The throwing twins of NSPredicate(format:) and withSubstitutionVariables(_:):
                    // a client's string must not stop the server, and a `$VARIABLE` has no value.
                    request.predicate = try NSPredicate(validatingFormat: format).withSubstitutionVariables(validating: [:])
                } catch {
                    throw HTTPError(.badRequest, message: "where: \(error.localizedDescription)")
                }
            }
            request.sortDescriptors = query.sort.map { NSSortDescriptor(key: $0.key, ascending: $0.ascending) }
            request.fetchLimit = query.limit
            request.fetchOffset = query.offset
            do {
                return try context.fetch(request).map(BookDTO.init)
            } catch let error as NSError where Self.isBadRequest(error) {
                throw HTTPError(.badRequest, message: error.localizedDescription)
            }
        }
    }

    /// The book with `id`, or nil.
    func book(_ id: UUID) async throws -> BookDTO? {
        try await container.performBackgroundTask { context in
            try Self.fetchBook(id, in: context).map(BookDTO.init)
        }
    }

    /// How many books there are.
    func count() async throws -> Int {
        try await container.performBackgroundTask { context in
            try context.count(for: Book.fetchRequest() as NSFetchRequest<Book>)
        }
    }

    // MARK: - Writing

    /// Saves a new book and returns it, with its new `id` and `createdAt`.
    func create(_ new: NewBook) async throws -> BookDTO {
        try await container.performBackgroundTask { context in
            let book = Book(context: context)
            book.title = new.title
            book.author = new.author
            book.year = Int32(clamping: new.year)
            book.rating = new.rating.map { NSNumber(value: $0) }
            try context.save()
            return BookDTO(book)
        }
    }

    /// Changes the fields `patch` has, saves, and returns the book; nil when there is no book
    /// with `id`.
    func update(_ id: UUID, with patch: BookPatch) async throws -> BookDTO? {
        try await container.performBackgroundTask { context in
            // Two requests changing different fields of one book both keep their change.
            context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
            guard let book = try Self.fetchBook(id, in: context) else { return nil }
            if let title = patch.title { book.title = title }
            if let author = patch.author { book.author = author }
            if let year = patch.year { book.year = Int32(clamping: year) }
            if let rating = patch.rating { book.rating = rating.map { NSNumber(value: $0) } }
            if context.hasChanges { try context.save() }
            return BookDTO(book)
        }
    }

    /// Deletes the book with `id`; false when there is none.
    func delete(_ id: UUID) async throws -> Bool {
        try await container.performBackgroundTask { context in
            guard let book = try Self.fetchBook(id, in: context) else { return false }
            context.delete(book)
            try context.save()
            return true
        }
    }

    // MARK: - Helpers, on a context's queue

    private static func fetchBook(_ id: UUID, in context: NSManagedObjectContext) throws -> Book? {
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.predicate = NSPredicate(format: "id == %@", id as NSUUID)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// Whether a fetch failed because of what the client asked for: a key the model lacks
    /// (`NSCoreDataError`, naming the key and the entity), a request no store can run
    /// (`NSPersistentStoreUnsupportedRequestTypeError`, naming the part), or a predicate the
    /// store could not evaluate (`NSPersistentStoreOperationError` with the predicate's error
    /// underneath: a `MATCHES` pattern that is not a regular expression).
    private static func isBadRequest(_ error: NSError) -> Bool {
        guard error.domain == NSCocoaErrorDomain else { return false }
        if error.code == NSPersistentStoreOperationError { return error.userInfo[NSUnderlyingErrorKey] is NSError }
        return [NSCoreDataError, NSPersistentStoreUnsupportedRequestTypeError].contains(error.code)
    }
}
