import Foundation

/// Compiles an `ExpressionNode` into a closure once; evaluating is then a call per object.
enum ExpressionCompiler {
    /// Compiles `node`; deep trees compile through `LargeStack`.
    static func compileTree(_ node: ExpressionNode) -> CompiledExpression {
        // Boxed, as `PredicateCompiler.compileTree` says why.
        node.onEnoughStack { Box(closure: compile(node)) }.closure
    }

    /// A compiled expression carried through generic code at its own abstraction.
    struct Box {
        let closure: CompiledExpression
    }

    static func compile(_ node: ExpressionNode) -> CompiledExpression {
        switch node {
        case .constant(let constant):
            let value = constant.value
            return { _, _ in value }

        case .evaluatedObject:
            return { subject, _ in subject.object }

        case .variable(let name):
            return { object, context in
                guard let bound = context.variables[name] else {
                    context.fail(.unboundVariable(name))
                    return nil
                }
                if let expression = bound as? NSExpression {
                    return expression.compiled(EvaluationSubject(object.object), &context)
                }
                return ValueSemantics.unwrapOptional(bound)
            }

        case .keyPath(let path):
            let components = path.components
            if components == ["self"] {
                return { subject, _ in subject.object }
            }
            if let key = node.singleKey {
                return { subject, _ in subject.codable.value(forKey: key) }
            }
            let startsWithKey = !components[0].hasPrefix("@") && components[0] != "self"
            if components.count == 2, startsWithKey, !components[1].hasPrefix("@") {
                let first = components[0]
                let second = components[1]
                return { subject, _ in
                    KeyValueReader.value(of: subject.codable.value(forKey: first), forKey: second)
                }
            }
            let first = components[0]
            if startsWithKey {
                return { subject, _ in
                    KeyValueReader.value(of: subject.codable.value(forKey: first), components: components.dropFirst())
                }
            }
            return { subject, _ in KeyValueReader.value(of: subject.object, components: components[...]) }

        case .function(let name, let arguments):
            return FunctionCompiler.compile(name: name, arguments: arguments)

        case .customFunction(let receiver, let selector, let arguments):
            let receiverClosure = compile(receiver)
            let argumentClosures = arguments.map(compile)
            return { object, context in
                let target = receiverClosure(object, &context)
                var values: [Any?] = []
                values.reserveCapacity(argumentClosures.count)
                for closure in argumentClosures { values.append(closure(object, &context)) }
                return SelectorInvocation.invoke(selector, on: target, arguments: values)
            }

        case .aggregate(let elements):
            // `{20, 40}`, `{"Leeds", "York"}`: built once, not per object.
            if let folded = node.compileTimeValue {
                let value = folded.value
                return { _, _ in value }
            }
            let closures = elements.map(compile)
            return { object, context in
                var values: [Any] = []
                values.reserveCapacity(closures.count)
                for closure in closures { values.append(closure(object, &context) ?? ValueSemantics.null) }
                return values
            }

        case .set(let operation, let left, let right):
            let leftClosure = compile(left)
            let rightClosure = compile(right)
            return { object, context in
                let lhs = leftClosure(object, &context)
                let rhs = rightClosure(object, &context)
                guard let a = collectionElements(lhs), let b = collectionElements(rhs) else {
                    context.fail(EvaluationError(message: "Can't evaluate set expression; both sides must be collections"))
                    return nil
                }
                return SetOperations.apply(operation, a, b)
            }

        case .subquery(let collection, let variable, let predicate):
            let collectionClosure = compile(collection)
            let predicateClosure = PredicateCompiler.compile(predicate)
            return { object, context in
                guard let elements = collectionElements(collectionClosure(object, &context)) else { return [Any]() }
                let saved = context.variables[variable]
                defer { context.variables[variable] = saved }
                var result: [Any] = []
                for element in elements {
                    context.variables[variable] = element
                    if predicateClosure(object, &context) { result.append(element) }
                }
                return result
            }

        case .conditional(let predicate, let whenTrue, let whenFalse):
            let test = PredicateCompiler.compile(predicate)
            let trueClosure = compile(whenTrue)
            let falseClosure = compile(whenFalse)
            return { object, context in
                test(object, &context) ? trueClosure(object, &context) : falseClosure(object, &context)
            }

        case .anyKey:
            return { _, _ in nil }

        case .block(let block, let arguments):
            let closures = arguments.map(compile)
            return { object, context in
                var values: [Any] = []
                for closure in closures { values.append(closure(object, &context) ?? ValueSemantics.null) }
                return ValueSemantics.unwrapOptional(block.body(object.object, values, nil))
            }

        case .symbol(let symbol):
            return { _, _ in symbol }
        }
    }

    /// The elements of a collection value (a dictionary's values), or nil if `value` is not one.
    @inline(__always)
    static func collectionElements(_ value: Any?) -> [Any]? {
        guard let value = ValueSemantics.unwrapOptional(value) else { return nil }
        return (value as? PredicateCollection)?.predicateElements
    }
}

extension ExpressionNode {
    /// The key of a key path of one plain key (`salary`), read with one `value(forKey:)`; nil
    /// for anything else (`self`, `@count`, `a.b`, not a key path).
    var singleKey: String? {
        guard case .keyPath(let path) = self, path.components.count == 1, path.components[0] != "self",
            !path.components[0].hasPrefix("@")
        else { return nil }
        return path.components[0]
    }

    /// The value of a constant, or of an aggregate of constants (`{20, 40}`), known when the
    /// expression compiles: the `[Any]` the aggregate's closure would build, `nil` elements as
    /// `NSNull`. Nil for anything else.
    var compileTimeValue: ConstantValue? {
        switch self {
        case .constant(let constant):
            return constant
        case .aggregate(let elements):
            var values: [Any] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard case .constant(let constant) = element else { return nil }
                values.append(constant.value ?? ValueSemantics.null)
            }
            return ConstantValue(values)
        default:
            return nil
        }
    }
}

/// `UNION`, `INTERSECT`, `MINUS` on collections; the result has no duplicates (Apple returns an
/// `NSSet`; here an array in first-seen order).
enum SetOperations {
    static func apply(_ operation: ExpressionNode.SetOperation, _ a: [Any], _ b: [Any]) -> [Any] {
        let right = Set(b.map(ConstantValue.init))
        switch operation {
        case .union:
            return Aggregates.distinct(a + b)
        case .intersect:
            return Aggregates.distinct(a).filter { right.contains(ConstantValue($0)) }
        case .minus:
            return Aggregates.distinct(a).filter { !right.contains(ConstantValue($0)) }
        }
    }
}
