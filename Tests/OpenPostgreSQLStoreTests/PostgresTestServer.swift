#if PostgreSQL
    import Foundation
    import OpenPostgreSQLStore
    import OpenSQLStore
    import Testing

    /// The PostgreSQL server the tests use: `OPENCOREDATA_POSTGRES_URL` (`.ci/postgres start` makes
    /// one and prints its URL; `.ci/run` does both). Without it the PostgreSQL tests are skipped —
    /// unless `CI` is set, where a missing server must fail the run instead of passing it quietly.
    ///
    /// Copy this file into another test target to run its tests against the same server:
    ///
    /// ```swift
    /// @Suite(.enabled(if: PostgresTestServer.isEnabled, "set OPENCOREDATA_POSTGRES_URL=postgres://… to run the PostgreSQL tests; .ci/run starts a server"))
    /// struct MyTests {
    ///     @Test func works() throws {
    ///         try PostgresTestServer.withDatabase { database in … }   // a schema of its own, dropped afterwards
    ///     }
    /// }
    /// ```
    enum PostgresTestServer {
        static let variable = "OPENCOREDATA_POSTGRES_URL"
        static let skipMessage =
            "set OPENCOREDATA_POSTGRES_URL=postgres://… to run the PostgreSQL tests; .ci/run starts a server"

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

        /// The condition of the suites' `.enabled(if:)` trait: a server is named, or this is CI (where
        /// `withDatabase` then fails the test for want of one).
        static var isEnabled: Bool { url != nil || isCI }

        struct Missing: Error, CustomStringConvertible {
            var description: String {
                "CI is set but \(PostgresTestServer.variable) is not: the PostgreSQL tests need a server "
                    + "(.ci/run starts one with .ci/postgres start)"
            }
        }

        /// A URL for the server with a fresh schema `t_<random>`.
        static func freshURL() throws -> PostgreSQLStoreURL {
            guard let url else { throw Missing() }
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            let separator = url.contains("?") ? "&" : "?"
            guard let full = URL(string: url + separator + "schema=" + schema) else { throw Missing() }
            return try PostgreSQLStoreURL(full)
        }

        /// Runs `body` with a database in a schema of its own (created by `PostgreSQLConnectionPool`), and
        /// drops the schema afterwards.
        static func withDatabase<T>(poolSize: Int = 8, _ body: (PostgreSQLConnectionPool) throws -> T) throws -> T {
            let url = try freshURL()
            let database = try PostgreSQLConnectionPool(url: url, poolSize: poolSize)
            defer {
                _ = try? database.withConnection { try $0.execute("DROP SCHEMA IF EXISTS \"\(url.schema)\" CASCADE") }
                database.close()
            }
            return try body(database)
        }
    }

    /// Waits (polling, up to `timeout` seconds) until `condition` holds; false if it never did.
    func eventually(timeout: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }
#endif
