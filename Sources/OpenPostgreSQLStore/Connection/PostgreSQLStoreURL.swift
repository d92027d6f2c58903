#if PostgreSQL
    import Foundation
    import OpenSQLStore

    /// Where a PostgreSQL store lives: a parsed
    /// `postgres://user:password@host:port/database?schema=…&sslmode=…` URL (`postgresql://` too).
    ///
    /// ```swift
    /// let url = try PostgreSQLStoreURL(URL(string: "postgres://app:secret@db.local/shop?schema=tenant_1")!)
    /// url.port      // 5432
    /// url.schema    // "tenant_1"
    /// url.redacted  // "postgres://app:***@db.local:5432/shop?schema=tenant_1"
    /// ```
    ///
    /// - `port`: **Default:** 5432.
    /// - `database`: **Default:** the user name (as libpq does).
    /// - `schema`: the schema the store's tables live in, created when missing. It must be an SQL
    ///   identifier (`[A-Za-z_][A-Za-z0-9_]*`); it is always quoted, so its case is kept.
    ///   **Default:** `public`.
    /// - `sslmode`, as libpq reads it: `require` encrypts without checking the server's certificate
    ///   (unless `sslrootcert` names a file: then as `verify-ca`), `verify-ca` checks that a trusted
    ///   authority signed it, `verify-full` also that it names the host; `disable`, `allow`, `prefer`
    ///   or none: no TLS. **Differences from libpq:** `allow` and `prefer` never try TLS.
    /// - `sslrootcert`: a PEM file of the authorities to trust instead of the system's.
    ///   **Default:** the system's trust roots.
    /// - `pool`: the largest number of connections the store opens (read by the store, not here).
    /// - User and password are percent-decoded. Other query items are ignored.
    ///
    /// What the URL leaves out comes from the environment, as libpq reads it: `PGHOST` (else
    /// `localhost`), `PGPORT`, `PGUSER` (else the user running the process), `PGDATABASE`,
    /// `PGSSLMODE`, `PGSSLROOTCERT`, and the password from `PGPASSWORD`, else the first matching
    /// line of the password file (`PGPASSFILE`, else `~/.pgpass`: `host:port:database:user:password`,
    /// `*` matching anything, `\:` and `\\` escaped; ignored unless only its owner may read it).
    /// **Differences from libpq:** a `PGHOST` naming a socket directory (a path) is refused: the
    /// store connects over TCP only.
    package struct PostgreSQLStoreURL: Sendable, Equatable {
        package var host: String
        package var port: Int
        package var user: String
        package var password: String?
        package var database: String
        package var schema: String
        package var tls: TLSMode
        /// The `sslrootcert` file, when there is one.
        package var rootCertificate: String?
        /// The `pool` query item, when there is one (a positive integer).
        package var poolSize: Int?

        package init(
            _ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment
        ) throws(PostgreSQLServerError) {
            let text = url.absoluteString
            let shown = Self.redact(text)
            func fail(_ reason: String) -> PostgreSQLServerError {
                PostgreSQLServerError(.other, message: "Invalid PostgreSQL store URL \(shown): \(reason)")
            }
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw fail("not a URL")
            }
            let scheme = components.scheme?.lowercased() ?? ""
            guard scheme == "postgres" || scheme == "postgresql" else {
                throw fail("the scheme must be postgres:// or postgresql:// (found \"\(components.scheme ?? "")\")")
            }
            func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? variable("PGHOST") ?? "localhost"
            guard !host.hasPrefix("/") else {
                throw fail("PGHOST names a socket directory (\(host)): this store connects over TCP; give a host name")
            }
            // URLComponents returns nil for a port that is not a number; look at the text for it.
            let port: Int
            if let value = components.port {
                port = value
            } else if Self.hasPortText(text) {
                throw fail("the port is not a number")
            } else if let value = variable("PGPORT") {
                guard let number = Int(value) else { throw fail("PGPORT (\(value)) is not a number") }
                port = number
            } else {
                port = 5432
            }
            guard (1...65_535).contains(port) else { throw fail("port \(port) is out of range (1-65535)") }
            guard let user = components.user.flatMap({ $0.isEmpty ? nil : $0 }) ?? variable("PGUSER") ?? Self.processUser
            else { throw fail("no user name (none in the URL, PGUSER or the process)") }
            var database = components.path
            if database.hasPrefix("/") { database.removeFirst() }
            if database.contains("/") { throw fail("the path must be one database name") }
            if database.isEmpty { database = variable("PGDATABASE") ?? "" }
            var schema = "public"
            var tls = TLSMode.disable
            var rootCertificate: String?
            var sslmode = variable("PGSSLMODE")
            rootCertificate = variable("PGSSLROOTCERT")
            var poolSize: Int?
            for item in components.queryItems ?? [] {
                switch item.name {
                case "schema":
                    let value = item.value ?? ""
                    guard Self.isIdentifier(value) else {
                        throw fail("schema \"\(value)\" is not an SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)")
                    }
                    schema = value
                case "sslmode":
                    sslmode = item.value ?? ""
                case "sslrootcert":
                    guard let value = item.value, !value.isEmpty else { throw fail("sslrootcert names no file") }
                    rootCertificate = value
                case "pool":
                    guard let value = item.value.flatMap({ Int($0) }), value > 0 else {
                        throw fail("pool must be a positive integer")
                    }
                    poolSize = value
                default: continue
                }
            }
            switch sslmode ?? "" {
            case "require": tls = .require
            case "verify-ca": tls = .verifyCA
            case "verify-full": tls = .verifyFull
            case "disable", "allow", "prefer", "": tls = .disable
            default: throw fail("unknown sslmode \"\(sslmode ?? "")\"")
            }
            if database.isEmpty { database = user }
            self.host = host
            self.port = port
            self.user = user
            self.password =
                components.password ?? variable("PGPASSWORD")
                ?? Self.passwordFile(environment).flatMap {
                    Self.password(in: $0, host: host, port: port, database: database, user: user)
                }
            self.database = database
            self.schema = schema
            self.tls = rootCertificate != nil && tls == .require ? .verifyCA : tls
            self.rootCertificate = rootCertificate
            self.poolSize = poolSize
        }

        /// Whether and how a connection uses TLS (`sslmode`).
        package enum TLSMode: String, Sendable {
            /// No TLS.
            case disable
            /// TLS, the server's certificate not checked.
            case require
            /// TLS, the certificate signed by a trusted authority.
            case verifyCA = "verify-ca"
            /// TLS, the certificate signed by a trusted authority and naming the host.
            case verifyFull = "verify-full"
        }

        /// The URL with the password replaced by `***`, for messages.
        package var redacted: String {
            var components = URLComponents()
            components.scheme = "postgres"
            components.user = user
            if password != nil { components.percentEncodedPassword = "***" }
            components.host = host
            components.port = port
            components.path = "/" + database
            var items: [URLQueryItem] = []
            if schema != "public" { items.append(URLQueryItem(name: "schema", value: schema)) }
            if tls != .disable { items.append(URLQueryItem(name: "sslmode", value: tls.rawValue)) }
            if let rootCertificate { items.append(URLQueryItem(name: "sslrootcert", value: rootCertificate)) }
            if let poolSize { items.append(URLQueryItem(name: "pool", value: String(poolSize))) }
            if !items.isEmpty { components.queryItems = items }
            return components.string ?? "postgres://\(user)@\(host):\(port)/\(database)"
        }

        /// The user running the process, as libpq takes it when no user is named.
        private static var processUser: String? {
            let name = NSUserName()
            return name.isEmpty ? nil : name
        }

        /// The password file's text (`PGPASSFILE`, else `~/.pgpass`), when it exists and only its
        /// owner may read or write it (libpq ignores it otherwise).
        static func passwordFile(_ environment: [String: String]) -> String? {
            let home = environment["HOME"] ?? NSHomeDirectory()
            let path = environment["PGPASSFILE"] ?? (home as NSString).appendingPathComponent(".pgpass")
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let permissions = attributes[.posixPermissions] as? NSNumber, permissions.intValue & 0o077 == 0,
                let data = FileManager.default.contents(atPath: path)
            else { return nil }
            return String(decoding: data, as: UTF8.self)
        }

        /// The password of the first line of a password file that matches: `host:port:database:
        /// user:password`, each of the first four fields `*` or equal to the connection's, `\:`
        /// and `\\` standing for `:` and `\`; `#` starts a comment line.
        static func password(in text: String, host: String, port: Int, database: String, user: String) -> String? {
            for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
                var fields: [String] = [""]
                var escaped = false
                for character in line {
                    if escaped {
                        fields[fields.count - 1].append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == ":", fields.count < 5 {
                        fields.append("")
                    } else {
                        fields[fields.count - 1].append(character)
                    }
                }
                guard fields.count == 5 else { continue }
                let wanted = [host, String(port), database, user]
                if zip(fields, wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
            }
            return nil
        }

        /// Whether `name` is an identifier this layer accepts: `[A-Za-z_][A-Za-z0-9_]*`, at most 63
        /// bytes (PostgreSQL's `NAMEDATALEN - 1`).
        package static func isIdentifier(_ name: String) -> Bool {
            let bytes = Array(name.utf8)
            guard let first = bytes.first, bytes.count <= 63 else { return false }
            func letter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) || byte == 95 }
            return letter(first) && bytes.dropFirst().allSatisfy { letter($0) || (48...57).contains($0) }
        }

        /// `text` with the password between `user:` and `@` replaced by `***`.
        static func redact(_ text: String) -> String {
            guard let schemeEnd = text.range(of: "://") else { return text }
            let rest = text[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
            return String(text[..<authority.index(after: colon)]) + "***" + String(text[at...])
        }

        /// Whether the authority of `text` has a `:port` part after the host.
        private static func hasPortText(_ text: String) -> Bool {
            guard let schemeEnd = text.range(of: "://") else { return false }
            let rest = text[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            var hostPart = rest[..<authorityEnd]
            if let at = hostPart.lastIndex(of: "@") { hostPart = hostPart[hostPart.index(after: at)...] }
            if hostPart.hasPrefix("["), let close = hostPart.firstIndex(of: "]") { hostPart = hostPart[close...] }
            return hostPart.contains(":")
        }
    }
#endif
