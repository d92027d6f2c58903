#if PostgreSQL
    import Foundation
    import OpenSQLStore
    import OpenStoreCore
    import PostgresNIO

    extension PostgresBindings {
        /// The bound parameters of a statement, one per value, in order:
        ///
        /// | `StoreValue` | PostgreSQL parameter |
        /// | --- | --- |
        /// | `.null` | an untyped NULL (the server infers the type) |
        /// | `.bool` | `int8` 0 or 1 (as the SQLite store stores booleans) |
        /// | `.integer` | `int8` |
        /// | `.double` | `float8` (NaN and ±infinity too) |
        /// | `.decimal` | `numeric`, exactly (Decimal's 38 digits; `Decimal.nan` → numeric NaN) |
        /// | `.string` | `text`; a string holding NUL (U+0000) is an error: PostgreSQL text can't hold it |
        /// | `.date` | `float8`: seconds since 2001-01-01 00:00:00 UTC (Core Data's reference date), as the SQLite store stores dates |
        /// | `.data` | `bytea` |
        /// | `.uuid` | `uuid` |
        /// | `.url` | `text`: the URL's `absoluteString` |
        /// | `.object` | `int8`: the destination's primary key (`Z_PK`) |
        /// | `.objects` | an error: a list of objects is not one parameter |
        init(storeValues values: [StoreValue], sql: String, server: String) throws(PostgreSQLServerError) {
            self.init(capacity: values.count)
            for (offset, value) in values.enumerated() {
                switch value {
                case .null: appendNull()
                case .bool(let bool): append(Int64(bool ? 1 : 0))
                case .integer(let integer): append(integer)
                case .double(let double): append(double)
                case .decimal(let decimal): append(NumericArgument(decimal))
                case .string(let string):
                    try Self.checkText(string, parameter: offset + 1, sql: sql, server: server)
                    append(string)
                case .date(let date): append(date.timeIntervalSinceReferenceDate)
                case .data(let data): append(ByteaArgument(data: data))
                case .uuid(let uuid): append(uuid)
                case .url(let url):
                    try Self.checkText(url.absoluteString, parameter: offset + 1, sql: sql, server: server)
                    append(url.absoluteString)
                case .object(let key): append(key.primaryKey)
                case .objects(let keys):
                    throw PostgreSQLServerError(
                        .other,
                        message: "PostgreSQL at \(server): parameter $\(offset + 1) is a list of \(keys.count) objects, "
                            + "which can't be bound as one SQL parameter (SQL: \(sql))")
                }
            }
        }

        private static func checkText(_ string: String, parameter: Int, sql: String, server: String) throws(PostgreSQLServerError)
        {
            if string.utf8.contains(0) {
                throw PostgreSQLServerError(
                    .other,
                    message: "PostgreSQL at \(server): parameter $\(parameter) is a string holding a NUL character (U+0000), "
                        + "which PostgreSQL text can't store (SQL: \(sql))")
            }
        }
    }

    /// `bytea` from `Data`, written straight into the message.
    struct ByteaArgument: PostgresNonThrowingEncodable {
        let data: Data
        static var psqlType: PostgresDataType { .bytea }
        static var psqlFormat: PostgresFormat { .binary }
        func encode<JSONEncoder: PostgresJSONEncoder>(
            into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
        ) {
            byteBuffer.writeBytes(data)
        }
    }

    /// `numeric` from `Decimal`, exactly: PostgreSQL's binary form (base-10000 digits, weight, sign,
    /// display scale) built from the decimal's digits. (postgres-nio's own `Decimal` encoding traps
    /// on `Decimal.nan`.)
    struct NumericArgument: PostgresNonThrowingEncodable {
        let decimal: Decimal
        init(_ decimal: Decimal) { self.decimal = decimal }

        static var psqlType: PostgresDataType { .numeric }
        static var psqlFormat: PostgresFormat { .binary }

        func encode<JSONEncoder: PostgresJSONEncoder>(
            into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
        ) {
            let numeric = PostgreSQLNumericDigits(decimal)
            byteBuffer.writeInteger(Int16(numeric.digits.count))
            byteBuffer.writeInteger(numeric.weight)
            byteBuffer.writeInteger(numeric.sign)
            byteBuffer.writeInteger(numeric.scale)
            for digit in numeric.digits { byteBuffer.writeInteger(digit) }
        }
    }

    /// PostgreSQL's `numeric` in its binary form's parts.
    struct PostgreSQLNumericDigits {
        static let positive: UInt16 = 0x0000
        static let negative: UInt16 = 0x4000
        static let nan: UInt16 = 0xC000
        static let positiveInfinity: UInt16 = 0xD000
        static let negativeInfinity: UInt16 = 0xF000

        /// Base-10000 digits, most significant first, no leading or trailing zero digit.
        var digits: [Int16] = []
        /// The power of 10000 of the first digit.
        var weight: Int16 = 0
        var sign: UInt16 = positive
        /// Decimal digits after the point.
        var scale: Int16 = 0

        init(_ decimal: Decimal) {
            if decimal.isNaN {
                sign = Self.nan
                return
            }
            // Decimal's description is exact and never uses an exponent ("-0.00015", "1000…").
            var text = Substring(decimal.description)
            if text.hasPrefix("-") {
                sign = Self.negative
                text = text.dropFirst()
            }
            let point = text.firstIndex(of: ".")
            let integer = Array(text[..<(point ?? text.endIndex)].utf8).map { Int16($0) - 48 }
            let fraction = point.map { Array(text[text.index(after: $0)...].utf8).map { Int16($0) - 48 } } ?? []
            scale = Int16(fraction.count)
            let lead = (4 - integer.count % 4) % 4
            let padded =
                [Int16](repeating: 0, count: lead) + integer + fraction
                + [Int16](repeating: 0, count: (4 - fraction.count % 4) % 4)
            var groups: [Int16] = []
            groups.reserveCapacity(padded.count / 4)
            var index = 0
            while index < padded.count {
                groups.append(padded[index] * 1000 + padded[index + 1] * 100 + padded[index + 2] * 10 + padded[index + 3])
                index += 4
            }
            var weight = (lead + integer.count) / 4 - 1
            var start = 0
            while start < groups.count, groups[start] == 0 {
                start += 1
                weight -= 1
            }
            var end = groups.count
            while end > start, groups[end - 1] == 0 { end -= 1 }
            if start == end {
                // Zero (also "-0"): no digits, positive.
                sign = Self.positive
                self.weight = 0
                return
            }
            digits = Array(groups[start..<end])
            self.weight = Int16(weight)
        }

        /// Reads the binary form; nil when it is malformed.
        init?(buffer: ByteBuffer) {
            var buffer = buffer
            guard let count = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
                let sign = buffer.readInteger(as: UInt16.self), let scale = buffer.readInteger(as: Int16.self), count >= 0
            else { return nil }
            self.weight = weight
            self.sign = sign
            self.scale = scale
            digits.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let digit = buffer.readInteger(as: Int16.self), (0..<10_000).contains(digit) else { return nil }
                digits.append(digit)
            }
        }

        /// The number as text with an exponent ("-15e-5", "NaN", "Infinity"): what `Decimal(string:)`
        /// and `Double(_:)` read.
        var scientific: String {
            switch sign {
            case Self.nan: return "NaN"
            case Self.positiveInfinity: return "Infinity"
            case Self.negativeInfinity: return "-Infinity"
            default: break
            }
            guard !digits.isEmpty else { return "0" }
            var text = sign == Self.negative ? "-" : ""
            var significant = ""
            for (index, digit) in digits.enumerated() {
                let group = String(digit)
                significant += index == 0 ? group : String(repeating: "0", count: 4 - group.count) + group
            }
            // Trailing zeros move into the exponent: fewer digits for Decimal to hold.
            var exponent = 4 * (Int(weight) - digits.count + 1)
            while significant.count > 1, significant.hasSuffix("0") {
                significant.removeLast()
                exponent += 1
            }
            text += significant
            if exponent != 0 { text += "e\(exponent)" }
            return text
        }

        /// As a `StoreValue`: `.decimal`, exact up to Decimal's 38 significant digits (digits past the
        /// 38th are dropped); NaN → `Decimal.nan`; ±infinity (PostgreSQL 14+), which Decimal can't
        /// hold, → `.double(±.infinity)`.
        var storeValue: StoreValue {
            switch sign {
            case Self.nan: return .decimal(.nan)
            case Self.positiveInfinity: return .double(.infinity)
            case Self.negativeInfinity: return .double(-.infinity)
            default: return .decimal(Decimal(string: scientific, locale: Locale(identifier: "en_US_POSIX")) ?? .nan)
            }
        }
    }
#endif
