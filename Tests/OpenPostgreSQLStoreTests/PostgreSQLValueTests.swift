#if PostgreSQL
    import Foundation
    import OpenStoreCore
    import Synchronization
    import TestSupport
    import Testing

    @testable import OpenPostgreSQLStore

    private let tableNumber = Atomic<Int>(0)

    /// Every kind of `StoreValue` written to a real server and read back.
    @Suite(.postgreSQLServer)
    struct PostgreSQLValueTests {
        /// Writes each value into a column of `type`, reads it back with `value(_:)`, and expects
        /// `expected` (the value itself when nil).
        static func roundTrip(_ database: PostgreSQLConnectionPool, type: String, _ cases: [(StoreValue, StoreValue?)]) throws {
            let table =
                "v_" + String(type.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
                + "_\(tableNumber.add(1, ordering: .relaxed).newValue)"
            try database.withConnection { session in
                try session.execute("CREATE TABLE \(table) (k int8 PRIMARY KEY, v \(type))")
                for (offset, (value, _)) in cases.enumerated() {
                    #expect(
                        try session.execute("INSERT INTO \(table) (k, v) VALUES ($1, $2)", [.integer(Int64(offset)), value]) == 1)
                }
                var read: [StoreValue] = []
                try session.query("SELECT k, v FROM \(table) ORDER BY k") { row in
                    #expect(row.count == 2)
                    read.append(row.value(1))
                }
                #expect(read.count == cases.count)
                for ((value, expected), got) in zip(cases, read) {
                    let want = expected ?? value
                    if case .double(let a) = want, case .double(let b) = got, a.isNaN {
                        #expect(b.isNaN, "\(type): NaN came back as \(b)")
                    } else if case .decimal(let a) = want, case .decimal(let b) = got, a.isNaN {
                        #expect(b.isNaN, "\(type): NaN came back as \(b)")
                    } else if case .double(let a) = want, case .double(let b) = got {
                        #expect(a.bitPattern == b.bitPattern, "\(type): \(a) came back as \(b)")
                    } else {
                        #expect(got == want, "\(type): \(value) came back as \(got)")
                    }
                }
            }
        }

        @Test func integers() throws {
            try PostgresTestServer.withDatabase { database in
                try Self.roundTrip(
                    database, type: "int8",
                    [
                        (.integer(.min), nil), (.integer(.max), nil), (.integer(0), nil), (.integer(-1), nil), (.null, nil),
                        (.bool(true), .integer(1)), (.bool(false), .integer(0)),
                        (.object(ObjectKey(entityID: 3, primaryKey: 42)), .integer(42)),
                    ])
                try Self.roundTrip(database, type: "int4", [(.integer(Int64(Int32.min)), nil), (.integer(7), nil)])
                try Self.roundTrip(database, type: "int2", [(.integer(Int64(Int16.max)), nil)])
            }
        }

        @Test func doubles() throws {
            try PostgresTestServer.withDatabase { database in
                try Self.roundTrip(
                    database, type: "float8",
                    [
                        (.double(.nan), nil), (.double(.infinity), nil), (.double(-.infinity), nil), (.double(-0.0), nil),
                        (.double(0.1), nil), (.double(.leastNonzeroMagnitude), nil), (.double(.greatestFiniteMagnitude), nil),
                        (.double(-1e-300), nil), (.null, nil),
                    ])
                // Dates: float8 seconds since 2001-01-01, read back as the double.
                let date = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
                try Self.roundTrip(database, type: "float8", [(.date(date), .double(123_456_789.125))])
                try Self.roundTrip(database, type: "float4", [(.double(1.5), nil)])
            }
        }

        @Test func decimalsAreExact() throws {
            let texts = [
                "12345678901234567890123456789012345678", "-12345678901234567890123456789012345678",
                "0.12345678901234567890123456789012345678", "-1234567890123456789.0123456789012345678",
                "0", "1", "-0.00015", "100000000000000000000000000000000000000000000000000", "1e-100",
                "99999999999999999999999999999999999999e-10", "12345678901234567890123456789012345678e50",
            ]
            var cases: [(StoreValue, StoreValue?)] = []
            for text in texts {
                let decimal = try #require(Decimal(string: text))
                cases.append((.decimal(decimal), nil))
            }
            cases.append((.decimal(.nan), nil))
            cases.append((.null, nil))
            try PostgresTestServer.withDatabase { database in
                try Self.roundTrip(database, type: "numeric", cases)
                // The server sees the exact number, not a double.
                try database.withConnection { session in
                    var text: String?
                    try session.query(
                        "SELECT ($1::numeric)::text",
                        [.decimal(try #require(Decimal(string: "-1234567890123456789.0123456789012345678")))]
                    ) { row in
                        text = row.string(0)
                    }
                    #expect(text == "-1234567890123456789.0123456789012345678")
                    var sum: StoreValue = .null
                    try session.query("SELECT $1::numeric + 1", [.decimal(try #require(Decimal(string: "0.1")))]) { row in
                        sum = row.value(0)
                    }
                    #expect(sum == .decimal(try #require(Decimal(string: "1.1"))))
                }
            }
        }

        @Test func stringsAndURLs() throws {
            let long = String(repeating: "ünïcödé 日本語 🎉 ", count: 20_000)
            try PostgresTestServer.withDatabase { database in
                try Self.roundTrip(
                    database, type: "text",
                    [
                        (.string(""), nil), (.string("héllo 日本 🎉\u{1F1EB}\u{1F1F7}"), nil), (.string(long), nil), (.null, nil),
                        (
                            .url(try #require(URL(string: "https://example.com/a%20b?q=1#f"))),
                            .string("https://example.com/a%20b?q=1#f")
                        ),
                    ])
                try Self.roundTrip(database, type: "varchar(20)", [(.string("ÅÄÖ"), nil)])
            }
        }

        @Test func dataAndUUIDs() throws {
            var generator = SystemRandomNumberGenerator()
            let large = Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try PostgresTestServer.withDatabase { database in
                try Self.roundTrip(
                    database, type: "bytea",
                    [(.data(Data()), nil), (.data(Data([0, 1, 0, 255])), nil), (.data(large), nil), (.null, nil)])
                try Self.roundTrip(database, type: "uuid", [(.uuid(UUID()), nil), (.uuid(UUID()), nil), (.null, nil)])
                try Self.roundTrip(database, type: "boolean", [(.null, nil)])
                try database.withConnection { session in
                    var values: [StoreValue] = []
                    try session.query("SELECT true, false, NULL, $1::int8 IS NULL", [.null]) { row in
                        values = (0..<row.count).map { row.value($0) }
                        #expect(row.isNull(2))
                        #expect(!row.isNull(0))
                        #expect(row.int64(0) == 1)
                        #expect(row.string(0) == nil)
                        #expect(row.double(0) == 1)
                        #expect(row.int64(99) == nil)
                    }
                    #expect(values == [.integer(1), .integer(0), .null, .integer(1)])
                }
            }
        }

        @Test func typedReaders() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { session in
                    try session.query("SELECT 42::int4, 2.5::float4, 12.25::numeric, 'x'::text, '\\x0102'::bytea") { row in
                        #expect(row.int64(0) == 42)
                        #expect(row.double(0) == 42)
                        #expect(row.double(1) == 2.5)
                        #expect(row.double(2) == 12.25)
                        #expect(row.int64(2) == nil)
                        #expect(row.string(3) == "x")
                        #expect(row.data(3) == nil)
                        #expect(row.data(4) == Data([1, 2]))
                    }
                }
            }
        }

        @Test func nulInTextIsAClearError() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { session in
                    try session.execute("CREATE TABLE t (v text)")
                    #expect {
                        try session.execute("INSERT INTO t (v) VALUES ($1)", [.string("a\u{0}b")])
                    } throws: { error in
                        guard let error = error as? PostgreSQLServerError else { return false }
                        return error.kind == .other && error.message.contains("NUL") && error.message.contains("$1")
                            && error.message.contains("INSERT INTO t")
                    }
                    var count: Int64?
                    try session.query("SELECT count(*) FROM t") { count = $0.int64(0) }
                    #expect(count == 0)
                    // The connection is still fine.
                    #expect(try session.execute("INSERT INTO t (v) VALUES ($1)", [.string("ab")]) == 1)
                }
            }
        }

        @Test func listsOfObjectsAreRefused() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { session in
                    #expect(throws: PostgreSQLServerError.self) {
                        try session.execute("SELECT $1", [.objects([ObjectKey(entityID: 1, primaryKey: 1)])])
                    }
                }
            }
        }
    }
#endif
