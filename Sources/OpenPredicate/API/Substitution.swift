import Foundation

/// Replaces `$VARIABLES` with constants (or, when the bound value is an `NSExpression`, with
/// that expression). Iteration variables of `SUBQUERY` are left alone inside their subquery.
/// Every free variable must be bound: a missing one is an error naming it.
struct Substitution {
    let bindings: [String: Any]
    private(set) var missing: String?

    init(bindings: [String: Any]) {
        self.bindings = bindings
    }

    mutating func apply(_ node: PredicateNode, bound: Set<String> = []) -> PredicateNode {
        switch node {
        case .constant, .opaque: return node
        case .comparison(var comparison):
            comparison.left = apply(comparison.left, bound: bound)
            comparison.right = apply(comparison.right, bound: bound)
            return .comparison(comparison)
        case .and(let children): return .and(children.map { apply($0, bound: bound) })
        case .or(let children): return .or(children.map { apply($0, bound: bound) })
        case .not(let child): return .not(apply(child, bound: bound))
        }
    }

    mutating func apply(_ node: ExpressionNode, bound: Set<String>) -> ExpressionNode {
        switch node {
        case .variable(let name):
            if bound.contains(name) { return node }
            guard let value = bindings[name] else {
                if missing == nil { missing = name }
                return node
            }
            if let expression = value as? NSExpression { return expression.node }
            return .constant(ConstantValue(value is NSNull ? nil : value))
        case .constant, .evaluatedObject, .keyPath, .anyKey, .symbol:
            return node
        case .function(let name, let arguments):
            return .function(name: name, arguments: arguments.map { apply($0, bound: bound) })
        case .customFunction(let receiver, let selector, let arguments):
            return .customFunction(
                receiver: apply(receiver, bound: bound), selector: selector,
                arguments: arguments.map { apply($0, bound: bound) })
        case .aggregate(let elements):
            return .aggregate(elements.map { apply($0, bound: bound) })
        case .set(let operation, let left, let right):
            return .set(operation, apply(left, bound: bound), apply(right, bound: bound))
        case .subquery(let collection, let variable, let predicate):
            return .subquery(
                collection: apply(collection, bound: bound), variable: variable,
                predicate: apply(predicate, bound: bound.union([variable])))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return .conditional(apply(predicate, bound: bound), apply(whenTrue, bound: bound), apply(whenFalse, bound: bound))
        case .block(let block, let arguments):
            return .block(block, arguments: arguments.map { apply($0, bound: bound) })
        }
    }
}
