import Foundation

extension NSExpression {
    /// The kind of expression its tree gives (`expressionType`, which subclasses override).
    var nodeExpressionType: ExpressionType {
        switch node {
        case .constant, .symbol: return .constantValue
        case .evaluatedObject: return .evaluatedObject
        case .variable: return .variable
        case .keyPath: return .keyPath
        case .function(let name, _) where name == "valueForKeyPath:": return .keyPath
        case .function, .customFunction: return .function
        case .set(.union, _, _): return .unionSet
        case .set(.intersect, _, _): return .intersectSet
        case .set(.minus, _, _): return .minusSet
        case .subquery: return .subquery
        case .aggregate: return .aggregate
        case .anyKey: return .anyKey
        case .block: return .block
        case .conditional: return .conditional
        }
    }

    /// The value of a constant expression (nil for other types; Apple raises).
    public var constantValue: Any? {
        switch node {
        case .constant(let constant): return constant.value
        case .aggregate: return expressionValue(with: nil, context: nil)
        case .symbol(let symbol): return symbol.rawValue
        default: return nil
        }
    }

    /// The key path of a key-path expression ("" for other types; Apple raises).
    public var keyPath: String {
        switch node {
        case .keyPath(let path): return path.string
        case .function("valueForKeyPath:", let arguments) where arguments.count == 2:
            if case .constant(let key) = arguments[1], let string = ValueSemantics.string(key.value) { return string }
            if case .variable(let name) = arguments[1] { return "$" + name }
            return ""
        default: return ""
        }
    }

    /// The name of a function expression (`sum:`, or the selector of `FUNCTION()`); "" for other types.
    public var function: String {
        switch node {
        case .function(let name, _): return name
        case .customFunction(_, let selector, _): return selector
        default: return ""
        }
    }

    /// The variable name of a variable expression (without `$`), or of a subquery's iterator; "" otherwise.
    public var variable: String {
        switch node {
        case .variable(let name): return name
        case .subquery(_, let name, _): return name
        default: return ""
        }
    }

    /// The object a function or key path applies to: `FUNCTION()`'s receiver, the base of
    /// `$x.key`, or `SELF` for a plain key path.
    public var operand: NSExpression {
        switch node {
        case .customFunction(let receiver, _, _): return NSExpression(node: receiver)
        case .function("valueForKeyPath:", let arguments) where arguments.count == 2: return NSExpression(node: arguments[0])
        default: return .expressionForEvaluatedObject()
        }
    }

    /// The arguments of a function expression (nil for other types).
    public var arguments: [NSExpression]? {
        switch node {
        case .function(let name, let arguments) where name != "valueForKeyPath:": return arguments.map(NSExpression.init(node:))
        case .customFunction(_, _, let arguments): return arguments.map(NSExpression.init(node:))
        case .block(_, let arguments): return arguments.map(NSExpression.init(node:))
        default: return nil
        }
    }

    /// The collection of a subquery or the elements of an aggregate (`[NSExpression]`).
    public var collection: Any {
        switch node {
        case .subquery(let collection, _, _): return NSExpression(node: collection)
        case .aggregate(let elements): return elements.map(NSExpression.init(node:))
        default: return [NSExpression]()
        }
    }

    /// The predicate of a subquery or conditional expression (`FALSEPREDICATE` otherwise).
    public var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let predicate), .conditional(let predicate, _, _): return PredicateTree.predicate(predicate)
        default: return NSPredicate(value: false)
        }
    }

    /// The left side of a set expression (`SELF` otherwise).
    public var left: NSExpression {
        if case .set(_, let left, _) = node { return NSExpression(node: left) }
        return .expressionForEvaluatedObject()
    }

    /// The right side of a set expression (`SELF` otherwise).
    public var right: NSExpression {
        if case .set(_, _, let right) = node { return NSExpression(node: right) }
        return .expressionForEvaluatedObject()
    }

    /// The expression a conditional returns when its predicate holds (`SELF` otherwise).
    public var `true`: NSExpression {
        if case .conditional(_, let whenTrue, _) = node { return NSExpression(node: whenTrue) }
        return .expressionForEvaluatedObject()
    }

    /// The expression a conditional returns when its predicate fails (`SELF` otherwise).
    public var `false`: NSExpression {
        if case .conditional(_, _, let whenFalse) = node { return NSExpression(node: whenFalse) }
        return .expressionForEvaluatedObject()
    }

    /// The block of a block expression (one returning `NSNull` otherwise).
    public var expressionBlock: (Any?, [Any], NSMutableDictionary?) -> Any {
        if case .block(let block, _) = node { return block.body }
        return { _, _, _ in ValueSemantics.null }
    }
}
