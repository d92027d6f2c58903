import Foundation

/// Prints predicate and expression trees in Apple's `predicateFormat` / `description` spelling.
///
/// What it prints re-parses (`PredicateParser`) to an equal tree for every tree the parser
/// produces, except for parts that have no format syntax: blocks, opaque predicates, custom
/// selectors, and constants of collection or object types (arrays print as `{…}` and re-parse
/// as aggregates, dates as `CAST(…)`).
package enum PredicatePrinter {
    // MARK: Predicates

    static func format(_ predicate: PredicateNode) -> String {
        predicate.onEnoughStack {
            var out = ""
            write(predicate, to: &out)
            return out
        }
    }

    static func write(_ predicate: PredicateNode, to out: inout String) {
        switch predicate {
        case .constant(let value):
            out += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison):
            write(comparison, to: &out)
        case .and(let operands):
            writeJunction(operands, separator: " AND ", empty: "TRUEPREDICATE", to: &out)
        case .or(let operands):
            writeJunction(operands, separator: " OR ", empty: "FALSEPREDICATE", to: &out)
        case .not(let operand):
            out += "NOT "
            let parenthesize = isCompound(operand)
            if parenthesize { out += "(" }
            write(operand, to: &out)
            if parenthesize { out += ")" }
        case .opaque:
            out += "BLOCKPREDICATE"
        }
    }

    /// AND/OR operands; one that is itself AND/OR, or a NOT of one, is parenthesized.
    private static func writeJunction(
        _ operands: [PredicateNode], separator: String, empty: String,
        to out: inout String
    ) {
        if operands.isEmpty {
            out += empty
            return
        }
        for (position, operand) in operands.enumerated() {
            if position > 0 { out += separator }
            var parenthesize = isCompound(operand)
            if case .not(let inner) = operand, isCompound(inner) { parenthesize = true }
            if parenthesize { out += "(" }
            write(operand, to: &out)
            if parenthesize { out += ")" }
        }
    }

    private static func isCompound(_ predicate: PredicateNode) -> Bool {
        switch predicate {
        case .and(let operands): return !operands.isEmpty
        case .or(let operands): return !operands.isEmpty
        default: return false
        }
    }

    static func format(_ comparison: ComparisonNode) -> String {
        var out = ""
        write(comparison, to: &out)
        return out
    }

    static func write(_ comparison: ComparisonNode, to out: inout String) {
        switch comparison.modifier {
        case .direct: break
        case .any: out += "ANY "
        case .all: out += "ALL "
        }
        write(comparison.left, to: &out)
        out += " "
        out += operatorText(comparison)
        out += " "
        write(comparison.right, to: &out)
    }

    @inline(never)
    private static func operatorText(_ comparison: ComparisonNode) -> String {
        if comparison.operatorType == .customSelector { return comparison.customSelector ?? "customSelector" }
        return operatorSpelling(comparison.operatorType) + optionsSpelling(comparison.options)
    }

    static func operatorSpelling(_ operatorType: ComparisonOperator) -> String {
        switch operatorType {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .matches: return "MATCHES"
        case .like: return "LIKE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .in: return "IN"
        case .contains: return "CONTAINS"
        case .between: return "BETWEEN"
        case .customSelector: return "customSelector"
        }
    }

    /// `[c]`, `[cd]`, `[n]`, `[l]` …, letters in the order c d n l; empty for no options.
    static func optionsSpelling(_ options: ComparisonOptions) -> String {
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        if options.contains(.localeSensitive) { letters += "l" }
        return letters.isEmpty ? "" : "[" + letters + "]"
    }

    // MARK: Expressions

    private static let infixOperators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
    ]

    static func format(_ expression: ExpressionNode) -> String {
        expression.onEnoughStack {
            var out = ""
            write(expression, to: &out)
            return out
        }
    }

    /// Appends `expression` to `out`. The recursive path is kept to small frames (leaves such as
    /// constants are printed by `@inline(never)` helpers) so 500-deep trees print on a small stack.
    static func write(_ expression: ExpressionNode, to out: inout String) {
        switch expression {
        case .constant(let constant):
            out += formatConstant(constant.value)
        case .evaluatedObject:
            out += "SELF"
        case .variable(let name):
            out += "$"
            out += escapedIdentifier(Substring(name))
        case .keyPath(let path):
            out += formatKeyPath(path.components)
        case .function(let name, let arguments):
            writeFunction(name, arguments, to: &out)
        case .customFunction(let receiver, let selector, let arguments):
            out += "FUNCTION("
            write(receiver, to: &out)
            out += ", "
            out += quote(selector)
            writeList(arguments, prefix: ", ", to: &out)
            out += ")"
        case .aggregate(let elements):
            out += "{"
            writeList(elements, prefix: "", to: &out)
            out += "}"
        case .set(let operation, let left, let right):
            writeInfixOperand(left, to: &out)
            out += setSpelling(operation)
            writeInfixOperand(right, to: &out)
        case .subquery(let collection, let variable, let predicate):
            out += "SUBQUERY("
            write(collection, to: &out)
            out += ", $"
            out += escapedIdentifier(Substring(variable))
            out += ", "
            write(predicate, to: &out)
            out += ")"
        case .conditional(let predicate, let whenTrue, let whenFalse):
            out += "TERNARY("
            write(predicate, to: &out)
            out += ", "
            write(whenTrue, to: &out)
            out += ", "
            write(whenFalse, to: &out)
            out += ")"
        case .anyKey:
            out += "ANYKEY"
        case .block(_, let arguments):
            out += "BLOCK(<block>"
            writeList(arguments, prefix: ", ", to: &out)
            out += ")"
        case .symbol(let symbol):
            out += symbol.rawValue
        }
    }

    @inline(never)
    private static func setSpelling(_ operation: ExpressionNode.SetOperation) -> String {
        switch operation {
        case .union: return " UNION "
        case .intersect: return " INTERSECT "
        case .minus: return " MINUS "
        }
    }

    /// Elements separated by `, `, the first preceded by `prefix`.
    private static func writeList(_ elements: [ExpressionNode], prefix: String, to out: inout String) {
        for (position, element) in elements.enumerated() {
            out += position == 0 ? prefix : ", "
            write(element, to: &out)
        }
    }

    /// Components joined with `.`, each spelled so that it lexes back as itself: a reserved word
    /// gets a `#`, a lone `@` is `#@`, and ASCII characters that cannot appear in an identifier
    /// (`#`, `@` after the first character, spaces, `-`, a leading digit …) are `\uXXXX` escapes.
    /// A leading `$` stays, as Apple prints it (`%K` with `"$single"` prints `$single`, which
    /// reads back as a variable).
    @inline(never)
    static func formatKeyPath(_ components: [String]) -> String {
        components.map(formatKeyComponent).joined(separator: ".")
    }

    private static func formatKeyComponent(_ component: String) -> String {
        if Keyword.isReserved(component) { return "#" + component }
        if component.hasPrefix("@") {
            let rest = component.dropFirst()
            return rest.isEmpty ? "#@" : "@" + escapedIdentifier(rest)
        }
        return escapedIdentifier(Substring(component))
    }

    /// `text` with every ASCII character that `Lexer` does not read as part of an identifier
    /// there written as a `\uXXXX` escape (which it decodes).
    private static func escapedIdentifier(_ text: Substring) -> String {
        let utf8 = text.utf8
        let isPlain =
            utf8.allSatisfy { Lexer.isIdentifierByte($0) } && utf8.first.map { Lexer.isIdentifierStart($0) } ?? false
        if isPlain { return String(text) }
        var out = ""
        for (position, scalar) in text.unicodeScalars.enumerated() {
            let value = scalar.value
            let escape =
                value < 0x80
                && (position == 0
                    ? !Lexer.isIdentifierStart(UInt8(value)) && value != 0x24
                    : !Lexer.isIdentifierByte(UInt8(value)))
            if escape {
                let hex = String(value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isInfix(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .function(let name, let arguments): return arguments.count == 2 && infixOperators[name] != nil
        case .set: return true
        default: return false
        }
    }

    /// An operand of an infix operator: parenthesized when it is itself infix.
    private static func writeInfixOperand(_ expression: ExpressionNode, to out: inout String) {
        let parenthesize = isInfix(expression)
        if parenthesize { out += "(" }
        write(expression, to: &out)
        if parenthesize { out += ")" }
    }

    /// Whether postfix `.key` / `[index]` binds to `expression` as a whole without parentheses.
    private static func isPostfixSafe(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .keyPath, .variable, .evaluatedObject, .aggregate, .customFunction, .subquery, .conditional, .anyKey:
            return true
        case .constant(let constant):
            return constant.value is String
        case .function:
            return !isInfix(expression)
        default:
            return false
        }
    }

    private static func writePostfixBase(_ expression: ExpressionNode, to out: inout String) {
        let parenthesize = !isPostfixSafe(expression)
        if parenthesize { out += "(" }
        write(expression, to: &out)
        if parenthesize { out += ")" }
    }

    /// `x` when `expression` is `0 - x`, the tree the parser builds for a unary minus (`-x`,
    /// `-(1)`).
    private static func negatedOperand(_ expression: ExpressionNode) -> ExpressionNode? {
        guard case .function("from:subtract:", let arguments) = expression, arguments.count == 2,
            case .constant(let zero) = arguments[0], let value = zero.value, type(of: value) == Int.self,
            value as? Int == 0
        else { return nil }
        return arguments[1]
    }

    /// A unary minus: `-x`, `--x`, `--1`, `-(1)` (a positive number needs the parentheses, or it
    /// would read back as a negative constant). Used for the right operand of an infix
    /// operator, where `0 - (0 - (0 - x))` would cost two levels of nesting per minus and stop
    /// parsing back under `ParserLimits.maxNestingDepth` for trees the parser accepted; the
    /// first minus of an expression still prints as Apple prints it (`0 - a`).
    private static func writeNegation(_ operand: ExpressionNode, to out: inout String) {
        out += "-"
        if let inner = negatedOperand(operand) {
            writeNegation(inner, to: &out)
        } else if case .constant(let constant) = operand, let value = constant.value, ValueSemantics.number(value) != nil,
            case let text = formatConstant(value), text.hasPrefix("-")
        {
            // A negative number: its minus reads back folded into the literal, as it was parsed.
            out += text
        } else {
            writePostfixBase(operand, to: &out)
        }
    }

    private static func writeFunction(_ name: String, _ arguments: [ExpressionNode], to out: inout String) {
        if arguments.count == 2 {
            if let symbol = infixOperators[name] {
                writeInfixOperand(arguments[0], to: &out)
                out += " "
                out += symbol
                out += " "
                if let negated = negatedOperand(arguments[1]) {
                    writeNegation(negated, to: &out)
                } else {
                    writeInfixOperand(arguments[1], to: &out)
                }
                return
            }
            switch name {
            case "objectFrom:withIndex:":
                writePostfixBase(arguments[0], to: &out)
                out += "["
                write(arguments[1], to: &out)
                out += "]"
                return
            case "valueForKeyPath:":
                if case .constant(let constant) = arguments[1], let key = constant.value as? String {
                    writePostfixBase(arguments[0], to: &out)
                    out += "."
                    out += formatKeyPath(KeyPathComponents(key).components)
                    return
                }
                if case .variable(let variable) = arguments[1] {
                    writePostfixBase(arguments[0], to: &out)
                    out += ".$"
                    out += escapedIdentifier(Substring(variable))
                    return
                }
            case "castObject:toType:":
                out += "CAST("
                if case .constant(let seconds) = arguments[0], case .constant(let type) = arguments[1],
                    ValueSemantics.string(type.value) == "NSDate", let number = ValueSemantics.number(seconds.value ?? "")
                {
                    // Seconds printed as a date constant prints them: CAST(-978250148.000000, "NSDate").
                    out += String(format: "%f", number.doubleValue) + ", \"NSDate\")"
                    return
                }
                writeList(arguments, prefix: "", to: &out)
                out += ")"
                return
            default:
                break
            }
        }
        out += name
        out += "("
        writeList(arguments, prefix: "", to: &out)
        out += ")"
    }

    // MARK: Constants

    /// A constant as Apple prints it: strings quoted, numbers bare, Bool as `1`/`0`, `nil`,
    /// collections in braces, dates, UUIDs, URLs and data as `CAST(…)`.
    @inline(never)
    static func formatConstant(_ value: Any?) -> String {
        guard let value = FormatParser.unwrap(value) else { return "nil" }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            if number is NSDecimalNumber { return number.description }
            let type = String(cString: number.objCType)
            if type == "f" || type == "d" { return formatDouble(number.doubleValue) }
            if type == "Q" { return String(number.uint64Value) }
            return String(number.int64Value)
        }
        switch value {
        case let string as String: return quote(string)
        case let substring as Substring: return quote(String(substring))
        case let character as Character: return quote(String(character))
        case let bool as Bool: return bool ? "1" : "0"
        case let integer as any BinaryInteger: return String(describing: integer)
        case let double as Double: return formatDouble(double)
        case let float as Float: return float.isFinite ? float.description : formatDouble(Double(float))
        case let decimal as Decimal: return decimal.description
        case is NSNull: return "<null>"
        case let date as Date:
            // Apple prints the seconds with six decimals: CAST(-978250148.000000, "NSDate").
            return "CAST(" + String(format: "%f", date.timeIntervalSinceReferenceDate) + ", \"NSDate\")"
        case let uuid as UUID: return "CAST(" + quote(uuid.uuidString) + ", \"NSUUID\")"
        case let url as URL: return "CAST(" + quote(url.absoluteString) + ", \"NSURL\")"
        case let data as Data: return "CAST(" + quote(data.base64EncodedString()) + ", \"NSData\")"
        case let string as NSString: return quote(String(describing: string))
        case let array as [Any?]: return "{" + array.map { formatConstant($0) }.joined(separator: ", ") + "}"
        case let array as NSArray: return "{" + array.map { formatConstant($0) }.joined(separator: ", ") + "}"
        case let set as Set<AnyHashable>:
            return "{" + set.map { formatConstant($0.base) }.joined(separator: ", ") + "}"
        case let set as NSSet: return "{" + set.allObjects.map { formatConstant($0) }.joined(separator: ", ") + "}"
        case let set as NSOrderedSet: return "{" + set.array.map { formatConstant($0) }.joined(separator: ", ") + "}"
        case let dictionary as [AnyHashable: Any?]:
            let pairs = dictionary.map { formatConstant($0.key.base) + ": " + formatConstant($0.value) }
            return "{" + pairs.joined(separator: ", ") + "}"
        case let dictionary as NSDictionary:
            let pairs = dictionary.map { formatConstant($0.key) + ": " + formatConstant($0.value) }
            return "{" + pairs.joined(separator: ", ") + "}"
        default:
            return String(describing: value)
        }
    }

    /// A double as Swift spells it (the shortest text that reads back as the same value),
    /// except infinities: `1e999` and `-1e999`, which parse back to them (Swift's `inf` would
    /// parse as a key path).
    private static func formatDouble(_ double: Double) -> String {
        if double.isInfinite { return double < 0 ? "-1e999" : "1e999" }
        return double.description
    }

    /// `"…"` with `"`, `\`, newline, tab and carriage return escaped.
    @inline(never)
    package static func quote(_ string: String) -> String {
        var out = "\""
        out.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
