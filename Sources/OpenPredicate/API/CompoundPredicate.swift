import Foundation

/// The `NSCompoundPredicate` that format strings produce: corelibs' class, with Apple's
/// `predicateFormat`, equality, copying, and the whole tree compiled into one closure.
final class CompoundPredicate: Foundation.NSCompoundPredicate {
    let node: PredicateNode
    let compiled: CompiledPredicate

    init(node: PredicateNode, type: Foundation.NSCompoundPredicate.LogicalType, subpredicates: [Foundation.NSPredicate]) {
        self.node = node
        self.compiled = PredicateCompiler.compile(node)
        super.init(type: type, subpredicates: subpredicates)
    }

    override var predicateFormat: String { PredicatePrinter.format(node) }
    override var description: String { predicateFormat }

    override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        var context = EvaluationContext(variables: bindings ?? [:])
        return compiled(EvaluationSubject(object), &context)
    }

    override func evaluate(with object: Any?) -> Bool {
        var context = EvaluationContext()
        return compiled(EvaluationSubject(object), &context)
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Foundation.NSPredicate else { return false }
        return other === self || PredicateTree.node(other) == node
    }

    override var hash: Int { node.hashValue }

    override func copy(with zone: NSZone? = nil) -> Any { self }
}
