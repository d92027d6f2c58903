import Foundation

/// Apple's table of predefined `NSExpression` functions (`init(forFunction:arguments:)`): which
/// selectors exist and how many arguments each takes.
enum BuiltinFunctions {
    /// Selectors of the statistics functions, which take one collection or several numbers.
    static let statistics: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    private static let arities: [String: ClosedRange<Int>] = {
        var table: [String: ClosedRange<Int>] = [:]
        for name in statistics { table[name] = 1...Int.max }
        for name in [
            "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
            "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
            "castObject:toType:", "objectFrom:withIndex:", "valueForKeyPath:", "distanceToLocation:fromLocation:",
        ] {
            table[name] = 2...2
        }
        for name in [
            "sqrt:", "log:", "ln:", "exp:", "ceiling:", "abs:", "trunc:", "floor:", "uppercase:", "lowercase:",
            "canonical:", "onesComplement:", "noindex:", "length:", "random:",
        ] {
            table[name] = 1...1
        }
        table["now"] = 0...0
        table["random"] = 0...0
        return table
    }()

    /// The number of arguments `selector` takes, or nil when it is not one of Apple's functions.
    static func arity(of selector: String) -> ClosedRange<Int>? {
        arities[selector]
    }

    /// The selector for function-call syntax (`sum(x)`, `now()`, `randomn(10)`), or nil when the
    /// name is not a function. Names are matched case-insensitively, as keywords are.
    static func selector(forCallName name: String, argumentCount: Int) -> String? {
        let lower = name.lowercased()
        switch lower {
        case "now": return "now"
        case "random": return argumentCount == 0 ? "random" : "random:"
        case "randomn": return "random:"
        case "avg": return "average:"
        default: break
        }
        let candidate = arities.keys.first { selector in
            !selector.dropLast().contains(":") && selector.hasSuffix(":") && selector.dropLast().lowercased() == lower
        }
        return candidate
    }
}
