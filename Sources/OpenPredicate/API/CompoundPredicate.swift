import Foundation

/// The `NSCompoundPredicate` that format strings produce: corelibs' class, with Apple's
/// `predicateFormat`, equality, copying, and the whole tree compiled into one closure.
///
/// The subpredicate objects are built when asked for (`subpredicates`), not up front: building
/// them eagerly would compile every nested subtree again.
final class CompoundPredicate: Foundation.NSCompoundPredicate {
    private(set) var node: PredicateNode
    private(set) var compiled: CompiledPredicate

    init(node: PredicateNode) {
        self.node = node
        self.compiled = PredicateCompiler.compileTree(node)
        let type = Self.logicalType(of: node)
        // corelibs refuses a NOT without a subpredicate; the real one comes from `node`.
        super.init(type: type, subpredicates: type == .not ? [Foundation.NSPredicate(value: false)] : [])
    }

    private static func logicalType(of node: PredicateNode) -> Foundation.NSCompoundPredicate.LogicalType {
        switch node {
        case .or: return .or
        case .not: return .not
        default: return .and
        }
    }

    private static func node(type: Foundation.NSCompoundPredicate.LogicalType, children: [PredicateNode]) -> PredicateNode {
        switch type {
        case .and: return .and(children)
        case .or: return .or(children)
        case .not: return children.first.map { .not($0) } ?? .constant(true)
        @unknown default: return .and(children)
        }
    }

    private var childNodes: [PredicateNode] {
        switch node {
        case .and(let children), .or(let children): return children
        case .not(let child): return [child]
        default: return []
        }
    }

    private func rebuild(_ newNode: PredicateNode) {
        node = newNode
        compiled = PredicateCompiler.compileTree(newNode)
    }

    override var subpredicates: [Foundation.NSPredicate] {
        get { childNodes.map(PredicateTree.predicate) }
        set { rebuild(Self.node(type: compoundPredicateType, children: newValue.map(PredicateTree.node))) }
    }

    override var compoundPredicateType: Foundation.NSCompoundPredicate.LogicalType {
        get { Self.logicalType(of: node) }
        set { rebuild(Self.node(type: newValue, children: childNodes)) }
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
        return other === self || PredicateTree.node(other).isEqualOnAnyStack(to: node)
    }

    override var hash: Int { node.hashValueOnAnyStack }

    override func copy(with zone: NSZone? = nil) -> Any { CompoundPredicate(node: node) }
}
