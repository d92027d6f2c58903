#if PostgreSQL
    import Foundation
    import OpenPostgreSQLStore
    import TestSupport

    extension PostgresTestServer {
        /// The test server with a fresh schema `t_<random>` and `queryItems` (`"&sslmode=require"`,
        /// say), as the store reads it.
        static func freshDatabaseURL(appending queryItems: String = "") throws -> PostgreSQLStoreURL {
            try PostgreSQLStoreURL(freshStoreURL(appending: queryItems))
        }

        /// Runs `body` with a database in a schema of its own (created by `PostgreSQLConnectionPool`), and
        /// drops the schema afterwards.
        static func withDatabase<T>(poolSize: Int = 8, _ body: (PostgreSQLConnectionPool) throws -> T) throws -> T {
            let url = try freshDatabaseURL()
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
