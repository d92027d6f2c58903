#if PostgreSQL
    import Foundation
    import Synchronization
    import TestSupport
    import Testing

    @testable import OpenPostgreSQLStore

    /// TLS as libpq's `sslmode` asks for it, against the test server's certificate (made by
    /// `.ci/postgres start` for 127.0.0.1 and signed by itself; `.ci/run` names it in
    /// `OPENCOREDATA_POSTGRES_ROOTCERT`). The server says whether each connection is encrypted
    /// (`pg_stat_ssl`).
    @Suite(.postgreSQLServer)
    struct PostgreSQLTLSTests {
        /// The test server with a fresh schema and these query items.
        static func url(_ items: String) throws -> PostgreSQLStoreURL {
            try PostgresTestServer.freshDatabaseURL(appending: items)
        }

        /// Whether the server sees the connection as encrypted.
        static func encrypted(_ url: PostgreSQLStoreURL) throws -> Bool {
            let database = try PostgreSQLConnectionPool(url: url, poolSize: 1)
            defer {
                _ = try? database.withConnection { try $0.execute("DROP SCHEMA IF EXISTS \"\(url.schema)\" CASCADE") }
                database.close()
            }
            var encrypted: Bool?
            try database.withConnection { session in
                try session.query("SELECT CASE WHEN ssl THEN 1 ELSE 0 END FROM pg_stat_ssl WHERE pid = pg_backend_pid()") {
                    encrypted = $0.int64(0) == 1
                }
            }
            return try #require(encrypted)
        }

        @Test func eachModeConnectsAsLibpqDoes() throws {
            guard let certificate = try PostgresTestServer.rootCertificate() else { return }
            #expect(try !Self.encrypted(Self.url("")))
            #expect(try !Self.encrypted(Self.url("&sslmode=prefer")))
            // The certificate is not checked: signed by itself, it still connects.
            #expect(try Self.encrypted(Self.url("&sslmode=require")))
            #expect(try Self.encrypted(Self.url("&sslmode=verify-ca&sslrootcert=\(certificate)")))
            #expect(try Self.encrypted(Self.url("&sslmode=verify-full&sslrootcert=\(certificate)")))
            // `require` with a root certificate checks it, as libpq does.
            #expect(try Self.url("&sslmode=require&sslrootcert=\(certificate)").tls == .verifyCA)
        }

        @Test func anUntrustedCertificateIsRefusedWithAClearError() throws {
            guard try PostgresTestServer.rootCertificate() != nil else { return }
            // The system's authorities did not sign the test server's certificate.
            let error = try #require(throws: PostgreSQLServerError.self) { try Self.encrypted(Self.url("&sslmode=verify-full")) }
            #expect(error.kind == .connection)
            #expect(error.message.contains("127.0.0.1"), "\(error.message)")
            #expect(error.message.lowercased().contains("certificate"), "\(error.message)")
            let missing = try #require(throws: PostgreSQLServerError.self) {
                try Self.encrypted(Self.url("&sslmode=verify-full&sslrootcert=/nonexistent/root.crt"))
            }
            #expect(missing.message.contains("/nonexistent/root.crt") || missing.message.contains("TLS"), "\(missing.message)")
        }

        @Test func listenRunsOverTLS() throws {
            guard let certificate = try PostgresTestServer.rootCertificate() else { return }
            let url = try Self.url("&sslmode=verify-full&sslrootcert=\(certificate)")
            let database = try PostgreSQLConnectionPool(url: url, poolSize: 1)
            defer {
                _ = try? database.withConnection { try $0.execute("DROP SCHEMA IF EXISTS \"\(url.schema)\" CASCADE") }
                database.close()
            }
            let received = Mutex<[String]>([])
            let listener = try database.listen(channel: "tls") { payload in received.withLock { $0.append(payload) } }
            defer { listener.cancel() }
            try database.withConnection { try $0.notify(channel: "tls", payload: "sealed") }
            #expect(eventually { received.withLock { $0 } == ["sealed"] })
        }
    }
#endif
