#if PostgreSQL
    import Foundation
    import OpenSQLStore
    import OpenStoreCore
    import PostgresNIO

    /// One row of a query's result, read by column index (0-based) straight from the bytes the
    /// server sent: no boxing, no per-row dictionary. Valid only during the `row` callback of
    /// `PostgreSQLConnection.query`.
    ///
    /// ```swift
    /// try session.query("SELECT Z_PK, ZNAME FROM ZITEM") { row in
    ///     let key = row.int64(0)       // Int64?
    ///     let name = row.string(1)     // String?
    /// }
    /// ```
    ///
    /// Each reader returns nil for NULL and for a column of a type it doesn't read (`int64` of a
    /// `text` column); `value(_:)` reads any column by its type. An index out of range reads as NULL.
    package struct PostgreSQLResultRow {
        let types: [PostgresDataType]
        let formats: [PostgresFormat]
        /// The row's cells, reached by index without making a `PostgresCell` (and copying its
        /// column's description) for each.
        let row: PostgresRandomAccessRow

        /// The number of columns.
        package var count: Int { row.count }

        /// Whether the column is NULL.
        package func isNull(_ index: Int) -> Bool {
            cell(index) == nil
        }

        /// An `int2`, `int4`, `int8` or `oid` column; `bool` as 0 or 1.
        package func int64(_ index: Int) -> Int64? {
            cell(index).flatMap { int64($0, index) }
        }

        private func int64(_ bytes: ByteBuffer, _ index: Int) -> Int64? {
            guard formats[index] == .binary else { return string(bytes, index).flatMap { Int64($0) } }
            switch types[index] {
            case .int8 where bytes.readableBytes == 8: return bytes.getInteger(at: bytes.readerIndex, as: Int64.self)
            case .int4 where bytes.readableBytes == 4:
                return bytes.getInteger(at: bytes.readerIndex, as: Int32.self).map(Int64.init)
            case .int2 where bytes.readableBytes == 2:
                return bytes.getInteger(at: bytes.readerIndex, as: Int16.self).map(Int64.init)
            case .oid where bytes.readableBytes == 4:
                return bytes.getInteger(at: bytes.readerIndex, as: UInt32.self).map(Int64.init)
            case .bool where bytes.readableBytes == 1:
                return bytes.getInteger(at: bytes.readerIndex, as: UInt8.self).map { $0 == 0 ? 0 : 1 }
            default: return nil
            }
        }

        /// A `float4` or `float8` column; integers and `numeric` converted to the nearest `Double`.
        package func double(_ index: Int) -> Double? {
            cell(index).flatMap { double($0, index) }
        }

        private func double(_ bytes: ByteBuffer, _ index: Int) -> Double? {
            guard formats[index] == .binary else { return string(bytes, index).flatMap { Double($0) } }
            switch types[index] {
            case .float8 where bytes.readableBytes == 8:
                return bytes.getInteger(at: bytes.readerIndex, as: UInt64.self).map { Double(bitPattern: $0) }
            case .float4 where bytes.readableBytes == 4:
                return bytes.getInteger(at: bytes.readerIndex, as: UInt32.self).map { Double(Float(bitPattern: $0)) }
            case .numeric:
                return PostgreSQLNumericDigits(buffer: bytes).flatMap { Double($0.scientific) }
            default:
                return int64(bytes, index).map { Double($0) }
            }
        }

        /// A `text`, `varchar`, `bpchar`, `name` (or `json`) column, decoded as UTF-8.
        package func string(_ index: Int) -> String? {
            cell(index).flatMap { string($0, index) }
        }

        private func string(_ bytes: ByteBuffer, _ index: Int) -> String? {
            if formats[index] == .binary {
                switch types[index] {
                case .text, .varchar, .bpchar, .name, .json: break
                default: return nil
                }
            }
            return bytes.getString(at: bytes.readerIndex, length: bytes.readableBytes)
        }

        /// A `bytea` column.
        package func data(_ index: Int) -> Data? {
            guard let bytes = cell(index), types[index] == .bytea, formats[index] == .binary else { return nil }
            return bytes.getData(at: bytes.readerIndex, length: bytes.readableBytes) ?? Data()
        }

        /// The column as a `StoreValue`, by the column's type: `int2`/`int4`/`int8`/`oid` →
        /// `.integer`, `float4`/`float8` → `.double`, `numeric` → `.decimal` (exact up to 38 digits;
        /// NaN → `Decimal.nan`, ±infinity → `.double(±.infinity)`), `text`/`varchar`/`bpchar`/`name`
        /// → `.string`, `bytea` → `.data`, `uuid` → `.uuid`, `bool` → `.integer(0/1)`, NULL → `.null`.
        /// Any other type → `.data` holding the server's binary form of the value.
        ///
        /// Dates are stored as `float8` seconds since 2001-01-01 and read back as `.double`: the
        /// caller, which knows the attribute is a date, makes the `Date`.
        package func value(_ index: Int) -> StoreValue {
            guard let bytes = cell(index) else { return .null }
            switch types[index] {
            case .int2, .int4, .int8, .oid, .bool: return int64(bytes, index).map(StoreValue.integer) ?? .null
            case .float4, .float8: return double(bytes, index).map(StoreValue.double) ?? .null
            case .numeric:
                if formats[index] == .text {
                    return string(bytes, index).flatMap { Decimal(string: $0) }.map(StoreValue.decimal) ?? .null
                }
                return PostgreSQLNumericDigits(buffer: bytes)?.storeValue ?? .null
            case .text, .varchar, .bpchar, .name: return string(bytes, index).map(StoreValue.string) ?? .null
            case .uuid:
                guard formats[index] == .binary, bytes.readableBytes == 16,
                    let uuid = bytes.getBytes(at: bytes.readerIndex, length: 16)
                else { return string(bytes, index).flatMap { UUID(uuidString: $0) }.map(StoreValue.uuid) ?? .null }
                return .uuid(
                    UUID(
                        uuid: (
                            uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8], uuid[9],
                            uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]
                        )))
            default:
                return .data(bytes.getData(at: bytes.readerIndex, length: bytes.readableBytes) ?? Data())
            }
        }

        private func cell(_ index: Int) -> ByteBuffer? {
            guard index >= 0, index < row.count else { return nil }
            return row[data: index].value
        }
    }
#endif
