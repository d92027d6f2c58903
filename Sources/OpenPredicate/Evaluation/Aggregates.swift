import Foundation

/// Statistics over values: the `@sum`-style key-path operators and the `sum:`-style functions.
///
/// Results keep integers as `Int` while every input is an integer, use `Decimal` when any input
/// is a `Decimal`, and `Double` otherwise. Non-numbers are skipped. Empty input: `sum` is 0,
/// `count` is 0, and `average`, `min`, `max`, `median`, `stddev` are nil.
enum Aggregates {
    typealias Number = ValueSemantics.Number

    static func numbers(_ values: [Any]) -> [Number] {
        values.compactMap { ValueSemantics.number($0) }
    }

    static func box(_ number: Number) -> Any {
        switch number {
        case .int(let value): Int(truncatingIfNeeded: value)
        case .double(let value): value
        case .decimal(let value): value
        }
    }

    static func sum(_ values: [Any]) -> Any {
        box(sumNumber(numbers(values)))
    }

    static func sumNumber(_ numbers: [Number]) -> Number {
        var intSum: Int64 = 0
        var overflowed = false
        var hasDouble = false
        var hasDecimal = false
        for number in numbers {
            switch number {
            case .int(let value):
                let (result, overflow) = intSum.addingReportingOverflow(value)
                intSum = result
                overflowed = overflowed || overflow
            case .double: hasDouble = true
            case .decimal: hasDecimal = true
            }
        }
        if hasDecimal {
            return .decimal(numbers.reduce(Decimal(0)) { $0 + $1.decimalValue })
        }
        if hasDouble || overflowed {
            return .double(numbers.reduce(0.0) { $0 + $1.doubleValue })
        }
        return .int(intSum)
    }

    static func average(_ values: [Any]) -> Any? {
        let numbers = numbers(values)
        guard !numbers.isEmpty else { return nil }
        switch sumNumber(numbers) {
        case .decimal(let total): return total / Decimal(numbers.count)
        case let total: return total.doubleValue / Double(numbers.count)
        }
    }

    static func minimum(_ values: [Any]) -> Any? {
        extreme(values, keeping: .orderedAscending)
    }

    static func maximum(_ values: [Any]) -> Any? {
        extreme(values, keeping: .orderedDescending)
    }

    /// The smallest or largest value by `compare:` (numbers, strings, dates all work).
    private static func extreme(_ values: [Any], keeping order: ComparisonResult) -> Any? {
        var best: Any?
        for value in values where !ValueSemantics.isNil(value) {
            guard let current = best else {
                best = value
                continue
            }
            if ValueSemantics.compare(value, current) == order {
                best = value
            }
        }
        return best
    }

    static func median(_ values: [Any]) -> Any? {
        let sorted = numbers(values).sorted { ValueSemantics.compare($0, $1) == .orderedAscending }
        guard !sorted.isEmpty else { return nil }
        if sorted.count % 2 == 1 {
            return box(sorted[sorted.count / 2])
        }
        let a = sorted[sorted.count / 2 - 1].doubleValue
        let b = sorted[sorted.count / 2].doubleValue
        return (a + b) / 2
    }

    /// Every value that occurs most often, in first-seen order (Apple returns an array).
    static func mode(_ values: [Any]) -> [Any] {
        var counts: [(value: Any, count: Int)] = []
        for value in values {
            if let index = counts.firstIndex(where: { ValueSemantics.isEqual($0.value, value) }) {
                counts[index].count += 1
            } else {
                counts.append((value, 1))
            }
        }
        let highest = counts.map(\.count).max() ?? 0
        return counts.filter { $0.count == highest }.map(\.value)
    }

    /// Population standard deviation.
    static func standardDeviation(_ values: [Any]) -> Any? {
        let doubles = numbers(values).map(\.doubleValue)
        guard !doubles.isEmpty else { return nil }
        let mean = doubles.reduce(0, +) / Double(doubles.count)
        let variance = doubles.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(doubles.count)
        return variance.squareRoot()
    }

    /// Values with duplicates (by `isEqual:`) removed, first occurrence kept.
    static func distinct(_ values: [Any]) -> [Any] {
        var result: [Any] = []
        var seen = Set<ConstantValue>()
        for value in values where seen.insert(ConstantValue(value)).inserted {
            result.append(value)
        }
        return result
    }
}

/// Plain textual forms of values (for `stringValue`, `CAST(x, 'NSString')`).
enum PredicateValueFormatting {
    static func plainDescription(of number: ValueSemantics.Number) -> String {
        switch number {
        case .int(let value): return String(value)
        case .double(let value):
            if value.rounded() == value, value.magnitude < 1e15 { return String(Int64(value)) }
            return String(value)
        case .decimal(let value): return value.description
        }
    }

    static func plainDescription(of value: Any?) -> String {
        guard let value = ValueSemantics.unwrapOptional(value) else { return "nil" }
        if let string = ValueSemantics.string(value) { return string }
        if value is Bool, let number = ValueSemantics.number(value) { return plainDescription(of: number) }
        if let number = ValueSemantics.number(value) { return plainDescription(of: number) }
        return String(describing: value)
    }
}
