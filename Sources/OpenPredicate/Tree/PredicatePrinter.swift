import Foundation

/// Prints predicate and expression trees in Apple's `predicateFormat` / `description` spelling.
///
/// What it prints re-parses (`PredicateParser`) to an equal tree for every tree the parser
/// produces, except for parts that have no format syntax: blocks, opaque predicates, custom
/// selectors, and constants of collection or object types (arrays print as `{…}` and re-parse
/// as aggregates, dates as `CAST(…)`).
enum PredicatePrinter {
    // MARK: Predicates

    static func format(_ predicate: PredicateNode) -> String {
        switch predicate {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison):
            return format(comparison)
        case .and(let operands):
            if operands.isEmpty { return "TRUEPREDICATE" }
            return operands.map(formatOperand).joined(separator: " AND ")
        case .or(let operands):
            if operands.isEmpty { return "FALSEPREDICATE" }
            return operands.map(formatOperand).joined(separator: " OR ")
        case .not(let operand):
            return "NOT " + (isCompound(operand) ? "(" + format(operand) + ")" : format(operand))
        case .opaque:
            return "BLOCKPREDICATE"
        }
    }

    private static func isCompound(_ predicate: PredicateNode) -> Bool {
        switch predicate {
        case .and(let operands): return operands.count != 0
        case .or(let operands): return operands.count != 0
        default: return false
        }
    }

    /// An operand of AND/OR: parenthesized when it is itself AND/OR or a NOT of one.
    private static func formatOperand(_ predicate: PredicateNode) -> String {
        if isCompound(predicate) { return "(" + format(predicate) + ")" }
        if case .not(let inner) = predicate, isCompound(inner) { return "(" + format(predicate) + ")" }
        return format(predicate)
    }

    static func format(_ comparison: ComparisonNode) -> String {
        var text = ""
        switch comparison.modifier {
        case .direct: break
        case .any: text = "ANY "
        case .all: text = "ALL "
        }
        text += format(comparison.left) + " "
        if comparison.operatorType == .customSelector {
            text += comparison.customSelector ?? "customSelector"
        } else {
            text += operatorSpelling(comparison.operatorType)
            text += optionsSpelling(comparison.options)
        }
        return text + " " + format(comparison.right)
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
        switch expression {
        case .constant(let constant):
            return formatConstant(constant.value)
        case .evaluatedObject:
            return "SELF"
        case .variable(let name):
            return "$" + name
        case .keyPath(let path):
            return formatKeyPath(path.components)
        case .function(let name, let arguments):
            return formatFunction(name, arguments)
        case .customFunction(let receiver, let selector, let arguments):
            let parts = [format(receiver), quote(selector)] + arguments.map { format($0) }
            return "FUNCTION(" + parts.joined(separator: ", ") + ")"
        case .aggregate(let elements):
            return "{" + elements.map { format($0) }.joined(separator: ", ") + "}"
        case .set(let operation, let left, let right):
            let word: String
            switch operation {
            case .union: word = "UNION"
            case .intersect: word = "INTERSECT"
            case .minus: word = "MINUS"
            }
            return formatInfixOperand(left) + " " + word + " " + formatInfixOperand(right)
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(" + format(collection) + ", $" + variable + ", " + format(predicate) + ")"
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return "TERNARY(" + format(predicate) + ", " + format(whenTrue) + ", " + format(whenFalse) + ")"
        case .anyKey:
            return "ANYKEY"
        case .block(_, let arguments):
            return "BLOCK(<block>" + arguments.map { ", " + format($0) }.joined() + ")"
        case .symbol(let symbol):
            return symbol.rawValue
        }
    }

    /// Components joined with `.`; a reserved word gets a `#`.
    static func formatKeyPath(_ components: [String]) -> String {
        components.map { Keyword.isReserved($0) ? "#" + $0 : $0 }.joined(separator: ".")
    }

    private static func isInfix(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .function(let name, let arguments): return arguments.count == 2 && infixOperators[name] != nil
        case .set: return true
        default: return false
        }
    }

    /// An operand of an infix operator: parenthesized when it is itself infix.
    private static func formatInfixOperand(_ expression: ExpressionNode) -> String {
        isInfix(expression) ? "(" + format(expression) + ")" : format(expression)
    }

    /// The base of `.key` or `[index]`: bare when postfix binds to it as a whole.
    private static func formatPostfixBase(_ expression: ExpressionNode) -> String {
        switch expression {
        case .keyPath, .variable, .evaluatedObject, .aggregate, .customFunction, .subquery, .conditional, .anyKey:
            return format(expression)
        case .constant(let constant) where constant.value is String:
            return format(expression)
        case .function:
            return isInfix(expression) ? "(" + format(expression) + ")" : format(expression)
        default:
            return "(" + format(expression) + ")"
        }
    }

    private static func formatFunction(_ name: String, _ arguments: [ExpressionNode]) -> String {
        if arguments.count == 2 {
            if let symbol = infixOperators[name] {
                return formatInfixOperand(arguments[0]) + " " + symbol + " " + formatInfixOperand(arguments[1])
            }
            switch name {
            case "objectFrom:withIndex:":
                return formatPostfixBase(arguments[0]) + "[" + format(arguments[1]) + "]"
            case "valueForKeyPath:":
                if case .constant(let constant) = arguments[1], let key = constant.value as? String {
                    return formatPostfixBase(arguments[0]) + "." + formatKeyPath(KeyPathComponents(key).components)
                }
                if case .variable(let variable) = arguments[1] {
                    return formatPostfixBase(arguments[0]) + ".$" + variable
                }
            case "castObject:toType:":
                return "CAST(" + format(arguments[0]) + ", " + format(arguments[1]) + ")"
            default:
                break
            }
        }
        let list = "(" + arguments.map { format($0) }.joined(separator: ", ") + ")"
        return name + list
    }

    // MARK: Constants

    /// A constant as Apple prints it: strings quoted, numbers bare, Bool as `1`/`0`, `nil`,
    /// collections in braces, dates, UUIDs, URLs and data as `CAST(…)`.
    static func formatConstant(_ value: Any?) -> String {
        guard let value = FormatParser.unwrap(value) else { return "nil" }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            if number is NSDecimalNumber { return number.description }
            let type = String(cString: number.objCType)
            if type == "f" || type == "d" { return number.doubleValue.description }
            if type == "Q" { return String(number.uint64Value) }
            return String(number.int64Value)
        }
        switch value {
        case let string as String: return quote(string)
        case let substring as Substring: return quote(String(substring))
        case let character as Character: return quote(String(character))
        case let bool as Bool: return bool ? "1" : "0"
        case let integer as any BinaryInteger: return String(describing: integer)
        case let double as Double: return double.description
        case let float as Float: return float.description
        case let decimal as Decimal: return decimal.description
        case is NSNull: return "<null>"
        case let date as Date:
            return "CAST(" + date.timeIntervalSinceReferenceDate.description + ", \"NSDate\")"
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

    /// `"…"` with `"`, `\`, newline, tab and carriage return escaped.
    static func quote(_ string: String) -> String {
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
