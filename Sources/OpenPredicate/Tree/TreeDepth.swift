/// How deep a tree nests, measured only as far as a limit: the recursion stops one level past
/// it, so the check itself needs little stack.
extension PredicateNode {
    /// Whether the tree nests more than `limit` levels.
    func isDeeper(than limit: Int) -> Bool {
        guard limit >= 0 else { return true }
        switch self {
        case .constant, .opaque: return false
        case .comparison(let comparison):
            return comparison.left.isDeeper(than: limit - 1) || comparison.right.isDeeper(than: limit - 1)
        case .and(let children), .or(let children):
            return children.contains { $0.isDeeper(than: limit - 1) }
        case .not(let child):
            return child.isDeeper(than: limit - 1)
        }
    }
}

extension ExpressionNode {
    /// Whether the tree nests more than `limit` levels.
    func isDeeper(than limit: Int) -> Bool {
        guard limit >= 0 else { return true }
        switch self {
        case .constant, .evaluatedObject, .variable, .keyPath, .anyKey, .symbol:
            return false
        case .function(_, let arguments), .block(_, let arguments), .aggregate(let arguments):
            return arguments.contains { $0.isDeeper(than: limit - 1) }
        case .customFunction(let receiver, _, let arguments):
            return receiver.isDeeper(than: limit - 1) || arguments.contains { $0.isDeeper(than: limit - 1) }
        case .set(_, let left, let right):
            return left.isDeeper(than: limit - 1) || right.isDeeper(than: limit - 1)
        case .subquery(let collection, _, let predicate):
            return collection.isDeeper(than: limit - 1) || predicate.isDeeper(than: limit - 1)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return predicate.isDeeper(than: limit - 1) || whenTrue.isDeeper(than: limit - 1)
                || whenFalse.isDeeper(than: limit - 1)
        }
    }
}

/// Where recursive work over a tree moves to `LargeStack`.
enum TreeRecursion {
    /// Trees up to this deep are printed and compiled on the caller's thread: at the measured
    /// worst case (~2 KiB a level for printing in a debug build) that is under 100 KiB.
    static let inlineDepth = 32
}
