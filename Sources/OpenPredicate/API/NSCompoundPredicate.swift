import Foundation

/// A predicate that combines others with AND, OR or NOT.
///
/// ```swift
/// let adults = NSCompoundPredicate(andPredicateWithSubpredicates: [
///     NSPredicate(format: "age >= 18"), NSPredicate(format: "name != nil"),
/// ])
/// adults.predicateFormat   // age >= 18 AND name != nil
/// ```
///
/// `NSPredicate(format:)` returns one of these for `AND`, `OR` and `NOT`. An AND of no
/// subpredicates is true and an OR of none is false, as Apple's are.
///
/// **Differences from Apple:** OpenPredicate's own class (see `NSPredicate`). A NOT of no
/// subpredicates is true (corelibs' stops the process; Apple's raises when evaluated).
/// See [NSCompoundPredicate](https://developer.apple.com/documentation/foundation/nscompoundpredicate).
open class NSCompoundPredicate: NSPredicate {
    /// How the subpredicates combine, with Apple's raw values.
    public enum LogicalType: UInt, Sendable {
        /// `NOT`: the one subpredicate is false.
        case not = 0
        /// `AND`: every subpredicate holds.
        case and = 1
        /// `OR`: some subpredicate holds.
        case or = 2
    }

    /// Combines `subpredicates` with `type`; NOT uses the first one.
    public init(type: LogicalType, subpredicates: [NSPredicate]) {
        super.init(node: Self.node(type: type, children: subpredicates.map(PredicateTree.node)))
    }

    /// The predicate for an AND, OR or NOT tree (`PredicateTree.predicate(_:)`).
    override init(node: PredicateNode) {
        super.init(node: node)
    }

    /// Reads a compound predicate archived by `encode(with:)`.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    /// `subpredicates[0] AND subpredicates[1] AND …`.
    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    /// `subpredicates[0] OR subpredicates[1] OR …`.
    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    /// `NOT predicate`.
    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }

    /// AND, OR or NOT.
    public var compoundPredicateType: LogicalType {
        switch node {
        case .or: return .or
        case .not: return .not
        default: return .and
        }
    }

    /// The combined predicates, each an `NSPredicate` (Apple's type is `[Any]` too). They are
    /// made when asked for: making them up front would compile every nested subtree again.
    public var subpredicates: [Any] { predicates }

    /// `subpredicates` with their type.
    package var predicates: [NSPredicate] {
        switch node {
        case .and(let children), .or(let children): return children.map(PredicateTree.predicate)
        case .not(let child): return [PredicateTree.predicate(child)]
        default: return []
        }
    }

    private static func node(type: LogicalType, children: [PredicateNode]) -> PredicateNode {
        switch type {
        case .and: return .and(children)
        case .or: return .or(children)
        case .not: return children.first.map { .not($0) } ?? .constant(true)
        }
    }
}
