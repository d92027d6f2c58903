import CoreData
import Foundation

/// The PostgreSQL server the tests use: `OPENCOREDATA_POSTGRES_URL` (`.ci/postgres start` makes
/// one and prints its URL; `.ci/run` does both). Without it the PostgreSQL tests are skipped, with
/// `skipMessage` — unless `CI` is set, where they run and fail for want of a server instead of
/// passing quietly.
///
/// ```swift
/// @Suite(.postgreSQLServer) struct MyTests {
///     @Test func works() throws {
///         let url = try PostgresTestServer.freshStoreURL()  // a schema of its own
///         defer { PostgresTestServer.destroy(url) }
///         …
///     }
/// }
/// ```
public enum PostgresTestServer {
    /// The variable that names the server.
    public static let variable = "OPENCOREDATA_POSTGRES_URL"
    /// The variable that names the server's TLS certificate (`.ci/postgres rootcert`).
    public static let rootCertificateVariable = "OPENCOREDATA_POSTGRES_ROOTCERT"
    /// Why the PostgreSQL tests were skipped, and how to run them.
    public static let skipMessage =
        "set OPENCOREDATA_POSTGRES_URL=postgres://… to run the PostgreSQL tests; .ci/run starts a server"

    /// The server's URL, when the environment names one (an empty value names none).
    public static var url: String? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return value
    }

    /// Whether this run is CI's (`CI` set to anything but empty, `0` or `false`).
    public static var isCI: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() else { return false }
        return !value.isEmpty && value != "0" && value != "false"
    }

    /// Whether the PostgreSQL tests run: a server is named, or this is CI (where `freshStoreURL()`
    /// then fails the test for want of one); never in a build without the store (the package trait
    /// `PostgreSQL` off).
    public static var isEnabled: Bool {
        #if PostgreSQL
            url != nil || isCI
        #else
            false
        #endif
    }

    /// The error of a PostgreSQL test under CI without a server.
    public struct Missing: Error, CustomStringConvertible {
        /// The error.
        public init() {}

        /// What is missing and how to provide it.
        public var description: String {
            "CI is set but \(PostgresTestServer.variable) is not: the PostgreSQL tests need a server "
                + "(.ci/run starts one with .ci/postgres start); locally, set \(PostgresTestServer.variable)=postgres://… "
                + "or leave CI unset to skip them"
        }
    }

    /// The error of a TLS test under CI without the server's certificate.
    public struct NoCertificate: Error, CustomStringConvertible {
        /// The error.
        public init() {}

        /// What is missing and how to provide it.
        public var description: String {
            "CI is set but \(PostgresTestServer.rootCertificateVariable) is not: .ci/run names the test server's TLS certificate"
        }
    }

    /// A store URL on the server in a fresh schema `t_<random>` (created when a store is opened
    /// there; drop it with `destroy(_:)`), with `queryItems` (`"&sslmode=require"`, say) after it.
    /// - Throws: `Missing` when no server is named.
    public static func freshStoreURL(appending queryItems: String = "") throws -> URL {
        guard let url else { throw Missing() }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        guard let full = URL(string: url + (url.contains("?") ? "&" : "?") + "schema=" + schema + queryItems) else {
            throw Missing()
        }
        return full
    }

    /// Drops a store made with `freshStoreURL()`, ignoring errors (the schema may not exist).
    public static func destroy(_ url: URL) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        try? coordinator.destroyPersistentStore(at: url, ofType: NSPostgreSQLStoreType)
    }

    /// The path of the server's TLS certificate (`OPENCOREDATA_POSTGRES_ROOTCERT`), or nil, saying
    /// so, where a developer's server has none.
    /// - Throws: `NoCertificate` under CI without one.
    public static func rootCertificate() throws -> String? {
        if let path = ProcessInfo.processInfo.environment[rootCertificateVariable], !path.isEmpty { return path }
        if isCI { throw NoCertificate() }
        print("\(rootCertificateVariable) is not set (`.ci/postgres rootcert` prints it): skipping the TLS tests")
        return nil
    }
}

extension TemporaryFolder {
    /// Where a test's store of `storeType` lives: a file `name` in the folder for SQLite, a fresh
    /// schema on the test server for PostgreSQL (dropped with the folder), nil in memory.
    public func storeURL(for storeType: String, name: String) throws -> URL? {
        switch storeType {
        case NSSQLiteStoreType: return url.appendingPathComponent(name)
        case NSPostgreSQLStoreType:
            let store = try PostgresTestServer.freshStoreURL()
            onRemove { PostgresTestServer.destroy(store) }
            return store
        default: return nil
        }
    }
}
