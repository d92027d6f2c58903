import Foundation
import OpenCoreData

/// The PostgreSQL server the store tests use: `OPENCOREDATA_POSTGRES_URL` (`.ci/postgres start`
/// makes one and prints its URL; `.ci/run` does both). Without it the PostgreSQL cases are left
/// out of `ContextFixture.storeTypes` — unless `CI` is set, where they stay and fail for want of
/// a server instead of passing quietly.
enum PostgresTestServer {
    static let variable = "OPENCOREDATA_POSTGRES_URL"

    /// The server's URL, when the environment names one.
    static var url: String? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return value
    }

    /// Whether this run is CI's (`CI` set to anything but empty, `0` or `false`).
    static var isCI: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() else { return false }
        return !value.isEmpty && value != "0" && value != "false"
    }

    /// Whether the PostgreSQL store runs in this test run (never in a build without it: the
    /// package trait `PostgreSQL` off).
    static var isEnabled: Bool {
        #if PostgreSQL
            url != nil || isCI
        #else
            false
        #endif
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "CI is set but \(PostgresTestServer.variable) is not: the PostgreSQL tests need a server "
                + "(.ci/run starts one with .ci/postgres start); locally, set \(PostgresTestServer.variable)=postgres://… "
                + "or leave CI unset to skip them"
        }
    }

    /// A store URL on the server in a fresh schema `t_<random>` (created when the store is
    /// added; drop it with `destroy(_:)`).
    static func freshStoreURL() throws -> URL {
        guard let url else { throw Missing() }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        guard let full = URL(string: url + (url.contains("?") ? "&" : "?") + "schema=" + schema) else { throw Missing() }
        return full
    }

    /// Drops a store made with `freshStoreURL()`, ignoring errors (the schema may not exist).
    static func destroy(_ url: URL) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        try? coordinator.destroyPersistentStore(at: url, ofType: NSPostgreSQLStoreType)
    }
}

extension TemporaryFolder {
    /// Where a test's store of `storeType` lives: a file `name` in the folder for SQLite, a
    /// fresh schema on the test server for PostgreSQL (dropped with the folder), nil in memory.
    func storeURL(for storeType: String, name: String) throws -> URL? {
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
