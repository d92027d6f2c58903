import Foundation

/// Compiles Apple's predefined functions (`sum:`, `add:to:`, `now`, `castObject:toType:`, …) and
/// the internal ones the parser produces for indexes and key paths on expressions.
///
/// Arithmetic keeps `Int` when both operands are integers and the result fits, uses `Decimal`
/// when either is a `Decimal`, and `Double` otherwise; `divide:by:` always gives `Double` (as
/// `NSNumber` division does). A non-number operand makes the result nil.
enum FunctionCompiler {
    typealias Number = ValueSemantics.Number

    static func compile(name: String, arguments: [ExpressionNode]) -> CompiledExpression {
        let closures = arguments.map(ExpressionCompiler.compile)
        // Unary and binary shapes get dedicated closures: no argument array per call.
        if closures.count == 2, let operation = binaryOperation(name) {
            let lhs = closures[0]
            let rhs = closures[1]
            return { object, context in
                operation(lhs(object, &context), rhs(object, &context))
            }
        }
        if closures.count == 1, let operation = unaryOperation(name) {
            let operand = closures[0]
            return { object, context in operation(operand(object, &context)) }
        }
        switch name {
        case "now":
            return { _, _ in Date() }
        case "random":
            return { _, _ in Int.random(in: 0..<Int(Int32.max)) }
        case "FETCH" where closures.count == 3:
            // Core Data's NSFetchRequestExpression: run the request in the context.
            return { object, context in
                let request = closures[0](object, &context)
                let fetchContext = ValueSemantics.unwrapOptional(closures[1](object, &context)) as? PredicateFetchContext
                let countOnly = ValueSemantics.unwrapOptional(closures[2](object, &context)) as? Bool ?? false
                guard let request = ValueSemantics.unwrapOptional(request), let fetchContext else {
                    context.fail(EvaluationError(message: "NSFetchRequestExpression could not evaluate its request or context."))
                    return nil
                }
                do {
                    return try fetchContext.predicateFetch(request, countOnly: countOnly)
                } catch {
                    context.fail(EvaluationError(message: error.localizedDescription))
                    return nil
                }
            }
        case let statistic where BuiltinFunctions.statistics.contains(statistic):
            return { object, context in
                var values: [Any] = []
                if closures.count == 1 {
                    let single = closures[0](object, &context)
                    if let elements = ExpressionCompiler.collectionElements(single) {
                        values = elements
                    } else if let single = ValueSemantics.unwrapOptional(single) {
                        values = [single]
                    }
                } else {
                    for closure in closures {
                        if let value = ValueSemantics.unwrapOptional(closure(object, &context)) { values.append(value) }
                    }
                }
                return statisticValue(statistic, values)
            }
        default:
            return { _, context in
                context.fail(EvaluationError(message: "Unsupported function '\(name)' with \(closures.count) arguments"))
                return nil
            }
        }
    }

    static func statisticValue(_ name: String, _ values: [Any]) -> Any? {
        switch name {
        case "sum:": return Aggregates.sum(values)
        case "count:": return values.count
        case "min:": return Aggregates.minimum(values)
        case "max:": return Aggregates.maximum(values)
        case "average:": return Aggregates.average(values)
        case "median:": return Aggregates.median(values)
        case "mode:": return Aggregates.mode(values)
        case "stddev:": return Aggregates.standardDeviation(values)
        default: return nil
        }
    }

    // MARK: - Binary

    static func binaryOperation(_ name: String) -> ((Any?, Any?) -> Any?)? {
        switch name {
        case "add:to:": return { arithmetic($0, $1, int: { $0.addingReportingOverflow($1) }, double: +, decimal: +) }
        case "from:subtract:": return { arithmetic($0, $1, int: { $0.subtractingReportingOverflow($1) }, double: -, decimal: -) }
        case "multiply:by:": return { arithmetic($0, $1, int: { $0.multipliedReportingOverflow(by: $1) }, double: *, decimal: *) }
        case "divide:by:": return divide
        case "modulus:by:": return modulus
        case "raise:toPower:":
            return { lhs, rhs in
                guard let a = number(lhs), let b = number(rhs) else { return nil }
                return pow(a.doubleValue, b.doubleValue)
            }
        case "bitwiseAnd:with:": return { integerOperation($0, $1, &) }
        case "bitwiseOr:with:": return { integerOperation($0, $1, |) }
        case "bitwiseXor:with:": return { integerOperation($0, $1, ^) }
        case "leftshift:by:": return { integerOperation($0, $1, <<) }
        case "rightshift:by:": return { integerOperation($0, $1, >>) }
        case "objectFrom:withIndex:": return objectAtIndex
        case "valueForKeyPath:":
            return { base, key in
                guard let keyPath = ValueSemantics.string(key) else { return nil }
                return KeyValueReader.value(of: base, forKeyPath: keyPath)
            }
        case "castObject:toType:": return { Casting.cast($0, to: ValueSemantics.string($1) ?? "") }
        case "distanceToLocation:fromLocation:": return { _, _ in nil }
        default: return nil
        }
    }

    @inline(__always)
    static func number(_ value: Any?) -> Number? {
        guard let value = ValueSemantics.unwrapOptional(value) else { return nil }
        return ValueSemantics.number(value)
    }

    static func arithmetic(
        _ lhs: Any?, _ rhs: Any?,
        int: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
        double: (Double, Double) -> Double,
        decimal: (Decimal, Decimal) -> Decimal
    ) -> Any? {
        guard let a = number(lhs), let b = number(rhs) else { return nil }
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let (result, overflow) = int(x, y)
            if !overflow { return Int(truncatingIfNeeded: result) }
            return double(Double(x), Double(y))
        case (.decimal, _), (_, .decimal):
            return decimal(a.decimalValue, b.decimalValue)
        default:
            return double(a.doubleValue, b.doubleValue)
        }
    }

    static func divide(_ lhs: Any?, _ rhs: Any?) -> Any? {
        guard let a = number(lhs), let b = number(rhs) else { return nil }
        if case .decimal = a { return b.decimalValue == 0 ? nil : a.decimalValue / b.decimalValue }
        if case .decimal = b { return b.decimalValue == 0 ? nil : a.decimalValue / b.decimalValue }
        return a.doubleValue / b.doubleValue
    }

    static func modulus(_ lhs: Any?, _ rhs: Any?) -> Any? {
        guard let a = number(lhs), let b = number(rhs) else { return nil }
        if case .int(let x) = a, case .int(let y) = b {
            guard y != 0 else { return nil }
            return Int(truncatingIfNeeded: x % y)
        }
        return fmod(a.doubleValue, b.doubleValue)
    }

    static func integerOperation(_ lhs: Any?, _ rhs: Any?, _ operation: (Int, Int) -> Int) -> Any? {
        guard let a = integer(lhs), let b = integer(rhs) else { return nil }
        return operation(a, b)
    }

    static func integer(_ value: Any?) -> Int? {
        guard let number = number(value) else { return nil }
        switch number {
        case .int(let value): return Int(truncatingIfNeeded: value)
        case .double(let value): return value.isFinite && value.magnitude < 9.2e18 ? Int(value) : nil
        case .decimal(let value): return NSDecimalNumber(decimal: value).intValue
        }
    }

    /// `x[i]`, `x[FIRST]`, `x[LAST]`, `x[SIZE]`, `dict['key']`. Out of range gives nil (Apple
    /// raises `NSRangeException`).
    static func objectAtIndex(_ base: Any?, _ index: Any?) -> Any? {
        guard let base = ValueSemantics.unwrapOptional(base) else { return nil }
        if let symbol = index as? ExpressionNode.IndexSymbol {
            guard let collection = base as? PredicateCollection else { return nil }
            let elements = collection.predicateElements
            switch symbol {
            case .first: return elements.first
            case .last: return elements.last
            case .size: return elements.count
            }
        }
        if let key = ValueSemantics.string(index) {
            return KeyValueReader.value(of: base, forKey: key)
        }
        guard let position = integer(index),
            let elements = (base as? PredicateCollection)?.predicateElements,
            elements.indices.contains(position)
        else { return nil }
        return elements[position]
    }

    // MARK: - Unary

    static func unaryOperation(_ name: String) -> ((Any?) -> Any?)? {
        switch name {
        case "sqrt:": return { double($0, sqrt) }
        case "log:": return { double($0, log10) }
        case "ln:": return { double($0, log) }
        case "exp:": return { double($0, exp) }
        case "ceiling:": return { double($0, ceil) }
        case "floor:": return { double($0, floor) }
        case "trunc:": return { double($0, trunc) }
        case "abs:":
            return { value in
                guard let number = number(value) else { return nil }
                switch number {
                case .int(let x): return x == .min ? Double(x).magnitude : Int(truncatingIfNeeded: x.magnitude)
                case .double(let x): return x.magnitude
                case .decimal(let x): return x < 0 ? -x : x
                }
            }
        case "uppercase:": return { ValueSemantics.string($0)?.uppercased() }
        case "lowercase:": return { ValueSemantics.string($0)?.lowercased() }
        case "canonical:":
            return { ValueSemantics.string($0).map { StringFolding.fold($0, caseInsensitive: true, diacriticInsensitive: true) } }
        case "length:": return { ValueSemantics.string($0)?.utf16.count }
        case "onesComplement:": return { integer($0).map { ~$0 } }
        case "noindex:": return { $0 }
        case "random:":
            return { value in
                guard let bound = integer(value), bound > 0 else { return nil }
                return Int.random(in: 0..<bound)
            }
        default:
            return nil
        }
    }

    static func double(_ value: Any?, _ operation: (Double) -> Double) -> Any? {
        guard let number = number(value) else { return nil }
        return operation(number.doubleValue)
    }
}
