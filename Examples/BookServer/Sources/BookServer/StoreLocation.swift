import CoreData
import Foundation

/// Where the books are kept: a file of the embedded SQLite store, or a schema on a PostgreSQL
/// server that several instances of the app can share.
public enum StoreLocation: Equatable, Sendable, CustomStringConvertible {
    /// An SQLite file in Apple's layout (made when missing).
    case sqlite(URL)
    /// A PostgreSQL store: `postgres://user:password@host:port/database?schema=name&sslmode=…`.
    case postgreSQL(URL)

    /// `books.sqlite` in the current folder.
    public static var defaultFile: StoreLocation {
        .sqlite(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("books.sqlite"))
    }

    /// A `postgres://` or `postgresql://` URL names a PostgreSQL store; anything else is the path
    /// (or `file://` URL) of an SQLite file.
    /// - Throws: `StoreLocation.Invalid` for an empty argument or a URL that does not parse.
    public init(_ argument: String) throws {
        let lowered = argument.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            guard let url = URL(string: argument), url.host != nil else { throw Invalid(argument: argument) }
            self = .postgreSQL(url)
        } else if lowered.hasPrefix("file://") {
            guard let url = URL(string: argument), url.isFileURL else { throw Invalid(argument: argument) }
            self = .sqlite(url)
        } else if argument.isEmpty || lowered.contains("://") {
            throw Invalid(argument: argument)
        } else {
            self = .sqlite(URL(fileURLWithPath: argument))
        }
    }

    /// A store location that is neither a file path nor a `postgres://` URL.
    public struct Invalid: Error, CustomStringConvertible {
        /// What was given.
        public var argument: String

        /// What was given, and what was expected.
        public var description: String {
            "'\(argument)' is neither the path of an SQLite file nor a postgres:// URL"
        }
    }

    /// The store's type, as Core Data names it.
    var storeType: String {
        switch self {
        case .sqlite: NSSQLiteStoreType
        case .postgreSQL: NSPostgreSQLStoreType
        }
    }

    /// The store's URL.
    var url: URL {
        switch self {
        case .sqlite(let url), .postgreSQL(let url): url
        }
    }

    /// The location for logs: the file's path, or the server without its password.
    public var description: String {
        switch self {
        case .sqlite(let url):
            return url.path
        case .postgreSQL(let url):
            guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "postgres://…" }
            if parts.password != nil { parts.password = "…" }
            return parts.string ?? "postgres://…"
        }
    }
}
