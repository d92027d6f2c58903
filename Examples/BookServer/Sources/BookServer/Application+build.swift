import Hummingbird
import Logging

/// How to run the server: where to listen and where the books are.
public struct AppConfiguration: Sendable {
    /// The address to listen on.
    public var hostname: String
    /// The port to listen on.
    public var port: Int
    /// Where the books are.
    public var store: StoreLocation
    /// The least important messages logged.
    public var logLevel: Logger.Level

    /// A configuration.
    ///
    /// **Default:** 127.0.0.1:8080, `books.sqlite` in the current folder, `info` and above logged.
    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, store: StoreLocation = .defaultFile,
        logLevel: Logger.Level = .info
    ) {
        self.hostname = hostname
        self.port = port
        self.store = store
        self.logLevel = logLevel
    }
}

/// The request context of every route.
typealias AppRequestContext = BasicRequestContext

/// Opens the store, then builds the application on it: `GET /health` and the `/books` routes.
/// The container is one of the application's services, started before the HTTP server and
/// stopped after it: on SIGTERM or SIGINT the server stops taking requests, then the saves in
/// flight finish and the store's connections close. The store logs its SQL through a logger
/// `BookServer.store` (statements at `debug`, redacted values at `trace`).
///
/// ```swift
/// let app = try await buildApplication(AppConfiguration(store: try StoreLocation("postgres://…")))
/// try await app.runService()
/// ```
public func buildApplication(_ configuration: AppConfiguration) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "BookServer")
    logger.logLevel = configuration.logLevel
    var storeLogger = Logger(label: "BookServer.store")
    storeLogger.logLevel = configuration.logLevel
    let store = try await BookStore.open(configuration.store, logger: storeLogger)
    logger.info("store opened", metadata: ["store": "\(configuration.store)"])
    return Application(
        router: buildRouter(store: store),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.hostname, port: configuration.port), serverName: "BookServer"),
        services: [store.container],
        logger: logger)
}

/// The routes, over an open store.
func buildRouter(store: BookStore) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.get("/health") { _, _ -> Health in
        Health(status: "ok", books: try await store.count())
    }
    BookController(store: store).addRoutes(to: router.group("books"))
    return router
}

/// `GET /health`: the server answers and its store can be read.
struct Health: ResponseEncodable, Decodable, Sendable {
    var status: String
    var books: Int
}
