import CSQLite
import OpenPredicate
import OpenSQLStore

/// The decimal aggregates of dictionary fetches, registered with `SQLiteFunctions`:
///
/// | function | answers |
/// |---|---|
/// | `ocd_decimal_sum(x)` | the `Decimal` sum of the non-NULL values, as text; NULL if none |
/// | `ocd_decimal_average(x)` | that sum divided by their number, as text; NULL if none |
///
/// Each value is read as a decimal attribute reads it (`SQLiteStatement.value(at:kind:)`: a REAL
/// through its shortest spelling, so 0.1 is exactly 0.1), and added as `Decimal`s, as the
/// in-memory store's `sum:` and `average:` do; SQL's `SUM` would add doubles (0.1 + 0.2 =
/// 0.30000000000000004). The text result reads back exactly as a `.decimal`.
enum DecimalAggregates {
    static func register(on handle: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var result = sqlite3_create_function_v2(
            handle, "ocd_decimal_sum", 1, flags, nil, nil, decimalStep, decimalSumFinal, nil)
        if result == SQLITE_OK {
            result = sqlite3_create_function_v2(
                handle, "ocd_decimal_average", 1, flags, nil, nil, decimalStep, decimalAverageFinal, nil)
        }
        return result
    }

    /// The running total in SQLite's aggregate context (zeroed memory: `count` 0 means empty).
    struct Accumulator {
        var count: Int64
        var total: Decimal
    }

    static func accumulator(_ context: OpaquePointer?, create: Bool) -> UnsafeMutablePointer<Accumulator>? {
        let size = create ? Int32(MemoryLayout<Accumulator>.stride) : 0
        guard let raw = sqlite3_aggregate_context(context, size) else { return nil }
        return raw.bindMemory(to: Accumulator.self, capacity: 1)
    }

    /// A value as a decimal attribute reads it; nil for NULL and what is no number.
    static func decimal(_ value: OpaquePointer?) -> Decimal? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return Decimal(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            let double = sqlite3_value_double(value)
            return Decimal(spelling: double)
        case SQLITE_TEXT: return SQLiteFunctions.text(value).flatMap { Decimal(string: $0) }
        default: return nil
        }
    }

    static func finish(_ context: OpaquePointer?, average: Bool) {
        guard let accumulator = accumulator(context, create: false), accumulator.pointee.count > 0 else {
            sqlite3_result_null(context)
            return
        }
        let total = accumulator.pointee.total
        SQLiteFunctions.resultText(context, (average ? total / Decimal(accumulator.pointee.count) : total).description)
    }
}

private func decimalStep(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 1, let values, let value = DecimalAggregates.decimal(values[0]) else { return }
    guard let accumulator = DecimalAggregates.accumulator(context, create: true) else {
        sqlite3_result_error_nomem(context)
        return
    }
    if accumulator.pointee.count == 0 {
        accumulator.pointee.total = value
    } else {
        accumulator.pointee.total += value
    }
    accumulator.pointee.count += 1
}

private func decimalSumFinal(context: OpaquePointer?) {
    DecimalAggregates.finish(context, average: false)
}

private func decimalAverageFinal(context: OpaquePointer?) {
    DecimalAggregates.finish(context, average: true)
}
