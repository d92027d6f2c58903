#if PostgreSQL
    import Foundation
    import Testing

    @testable import OpenPostgreSQLStore

    /// Parsing store URLs: no server needed.
    @Suite struct PostgreSQLStoreURLTests {
        /// Parsed with `environment` in place of the process's (none of libpq's variables unless given).
        static func parse(_ text: String, environment: [String: String] = ["HOME": "/nonexistent"])
            throws(PostgreSQLServerError) -> PostgreSQLStoreURL
        {
            guard let url = URL(string: text) else { throw PostgreSQLServerError(.other, message: "not a URL: \(text)") }
            return try PostgreSQLStoreURL(url, environment: environment)
        }

        static func failure(_ text: String, environment: [String: String] = ["HOME": "/nonexistent"])
            -> PostgreSQLServerError?
        {
            do {
                _ = try parse(text, environment: environment)
                return nil
            } catch {
                return error
            }
        }

        @Test func defaults() throws {
            let url = try Self.parse("postgres://app@db.local")
            #expect(url.host == "db.local")
            #expect(url.port == 5432)
            #expect(url.user == "app")
            #expect(url.password == nil)
            #expect(url.database == "app")
            #expect(url.schema == "public")
            #expect(url.tls == .disable)
            #expect(url.poolSize == nil)
        }

        @Test func everyPart() throws {
            let url = try Self.parse("postgresql://app:s%40cret@10.1.2.3:6543/shop?schema=Tenant_1&sslmode=require&pool=20")
            #expect(url.host == "10.1.2.3")
            #expect(url.port == 6543)
            #expect(url.user == "app")
            #expect(url.password == "s@cret")
            #expect(url.database == "shop")
            #expect(url.schema == "Tenant_1")
            #expect(url.tls == .require)
            #expect(url.poolSize == 20)
            #expect(url.redacted == "postgres://app:***@10.1.2.3:6543/shop?schema=Tenant_1&sslmode=require&pool=20")
            #expect(!url.redacted.contains("cret"))
        }

        @Test func sslModes() throws {
            #expect(try Self.parse("postgres://a@h/d?sslmode=verify-full").tls == .verifyFull)
            #expect(try Self.parse("postgres://a@h/d?sslmode=verify-ca").tls == .verifyCA)
            #expect(try Self.parse("postgres://a@h/d?sslmode=require").tls == .require)
            #expect(try Self.parse("postgres://a@h/d?sslmode=prefer").tls == .disable)
            #expect(try Self.parse("postgres://a@h/d?sslmode=disable").tls == .disable)
            #expect(try Self.parse("postgres://a@h/d").tls == .disable)
            let rooted = try Self.parse("postgres://a@h/d?sslmode=require&sslrootcert=/etc/ca.pem")
            #expect(rooted.tls == .verifyCA && rooted.rootCertificate == "/etc/ca.pem")
            #expect(rooted.redacted == "postgres://a@h:5432/d?sslmode=verify-ca&sslrootcert=/etc/ca.pem")
            #expect(Self.failure("postgres://a@h/d?sslrootcert=")?.message.contains("sslrootcert") == true)
            #expect(Self.failure("postgres://a@h/d?sslmode=sometimes")?.message.contains("sslmode") == true)
        }

        /// What the URL leaves out comes from libpq's variables, then libpq's defaults.
        @Test func libpqVariablesFillWhatTheURLLeavesOut() throws {
            let bare = try Self.parse("postgres:///")
            #expect(bare.host == "localhost" && bare.port == 5432 && bare.password == nil)
            #expect(!bare.user.isEmpty && bare.database == bare.user)
            let environment = [
                "PGHOST": "db.example", "PGPORT": "6543", "PGUSER": "reporter", "PGDATABASE": "sales",
                "PGPASSWORD": "from-env", "PGSSLMODE": "require", "HOME": "/nonexistent",
            ]
            let filled = try Self.parse("postgres:///", environment: environment)
            #expect(filled.host == "db.example" && filled.port == 6543 && filled.user == "reporter")
            #expect(filled.database == "sales" && filled.password == "from-env" && filled.tls == .require)
            // The URL's own parts win.
            let given = try Self.parse("postgres://app:secret@h:7000/d?sslmode=disable", environment: environment)
            #expect(given.host == "h" && given.port == 7000 && given.user == "app" && given.database == "d")
            #expect(given.password == "secret" && given.tls == .disable)
            #expect(
                Self.failure("postgres:///", environment: ["PGHOST": "/var/run/postgresql"])?.message.contains("socket") == true)
            #expect(Self.failure("postgres:///", environment: ["PGPORT": "many"])?.message.contains("PGPORT") == true)
        }

        /// The password file: the first matching line, wildcards and escapes as libpq reads them,
        /// and only when no one but its owner may read it.
        @Test func passwordFile() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("pgpass")
            try """
            # comment
            other:5432:*:app:wrong
            db.local:5432:shop:app:first\\:colon
            *:*:*:app:fallback
            """.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            let environment = ["PGPASSFILE": file.path]
            #expect(try Self.parse("postgres://app@db.local/shop", environment: environment).password == "first:colon")
            #expect(try Self.parse("postgres://app@db.local/other", environment: environment).password == "fallback")
            #expect(try Self.parse("postgres://bob@db.local/shop", environment: environment).password == nil)
            // PGPASSWORD and the URL come first.
            #expect(
                try Self.parse("postgres://app@db.local/shop", environment: environment.merging(["PGPASSWORD": "env"]) { $1 })
                    .password == "env")
            #expect(try Self.parse("postgres://app:url@db.local/shop", environment: environment).password == "url")
            // A file others may read is ignored, as libpq ignores it.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            #expect(try Self.parse("postgres://app@db.local/shop", environment: environment).password == nil)
        }

        @Test func errorsNameTheURLWithTheirPasswordMasked() {
            let cases: [(String, String)] = [
                ("mysql://app:pw123@h/d", "scheme"),
                ("postgres://app:pw123@h/d?sslmode=sometimes", "sslmode"),
                ("postgres://app:pw123@h:99999/d", "out of range"),
                ("postgres://app:pw123@h/d?schema=1abc", "not an SQL identifier"),
                ("postgres://app:pw123@h/d?schema=a-b", "not an SQL identifier"),
                ("postgres://app:pw123@h/d?schema=", "not an SQL identifier"),
                ("postgres://app:pw123@h/d?pool=0", "pool"),
            ]
            for (text, reason) in cases {
                let error = Self.failure(text)
                #expect(error != nil, "\(text) should be refused")
                #expect(error?.message.contains(reason) == true, "\(text): \(error?.message ?? "")")
                #expect(error?.message.contains("pw123") == false, "\(text): the password shows")
                if text.contains("pw123") { #expect(error?.message.contains("app:***@") == true, "\(error?.message ?? "")") }
            }
        }

        @Test func identifiers() {
            #expect(PostgreSQLStoreURL.isIdentifier("_a9"))
            #expect(PostgreSQLStoreURL.isIdentifier(String(repeating: "a", count: 63)))
            #expect(!PostgreSQLStoreURL.isIdentifier(String(repeating: "a", count: 64)))
            #expect(!PostgreSQLStoreURL.isIdentifier("a\"b"))
            #expect(!PostgreSQLStoreURL.isIdentifier("é"))
        }

        @Test func sqlStatesMapToKinds() {
            #expect(PostgreSQLServerError.kind(sqlState: "40001") == .serializationFailure)
            #expect(PostgreSQLServerError.kind(sqlState: "40P01") == .deadlock)
            #expect(PostgreSQLServerError.kind(sqlState: "23505") == .uniqueViolation)
            #expect(PostgreSQLServerError.kind(sqlState: "42P01") == .undefinedTable)
            #expect(PostgreSQLServerError.kind(sqlState: "42601") == .syntax)
            #expect(PostgreSQLServerError.kind(sqlState: "08006") == .connection)
            #expect(PostgreSQLServerError.kind(sqlState: "57P01") == .connection)
            #expect(PostgreSQLServerError.kind(sqlState: "22012") == .other)
        }

        /// Numerics in PostgreSQL's binary form, built from Decimal's digits.
        @Test func numericDigits() {
            func parts(_ text: String) -> (digits: [Int16], weight: Int16, sign: UInt16, scale: Int16) {
                let numeric = PostgreSQLNumericDigits(Decimal(string: text) ?? .nan)
                return (numeric.digits, numeric.weight, numeric.sign, numeric.scale)
            }
            #expect(parts("0") == ([], 0, 0, 0))
            #expect(parts("12345.678") == ([1, 2345, 6780], 1, 0, 3))
            #expect(parts("-0.00015") == ([1, 5000], -1, 0x4000, 5))
            #expect(parts("10000") == ([1], 1, 0, 0))
            #expect(PostgreSQLNumericDigits(.nan).sign == 0xC000)
            #expect(PostgreSQLNumericDigits(Decimal(string: "-0.00015") ?? 0).scientific == "-15e-5")
        }

        /// A server that isn't there: a `.connection` error naming it, not a hang.
        @Test func unreachableServerIsAConnectionError() throws {
            let url = try Self.parse("postgres://nobody:secret@127.0.0.1:1/none")
            #expect {
                _ = try PostgreSQLConnectionPool(url: url)
            } throws: { error in
                guard let error = error as? PostgreSQLServerError else { return false }
                return error.kind == .connection && error.message.contains("127.0.0.1:1") && !error.message.contains("secret")
            }
        }
    }
#endif
