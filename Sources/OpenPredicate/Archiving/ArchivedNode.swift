import Foundation

/// Stands in for a child predicate or expression while its parent is archived.
///
/// The archiver writes the class `classForKeyedArchiver` names (`NSExpression`,
/// `NSComparisonPredicate`, …), so the archive decodes as the real classes. The stand-in is
/// there because corelibs' archiver merges objects that are `isEqual`, and expressions are equal
/// across number types (`1` and `1.0`): written as themselves, `a == 1 OR b == 1.0` would come
/// back as `a == 1 OR b == 1`. Stand-ins are equal only to themselves, and hash in O(1) where a
/// tree would hash its whole subtree.
final class ArchivedNode: NSObject, NSSecureCoding {
    private enum Content {
        case predicate(PredicateNode)
        case expression(ExpressionNode)
    }

    private let content: Content

    init(_ node: PredicateNode) {
        content = .predicate(node)
        super.init()
    }

    init(_ node: ExpressionNode) {
        content = .expression(node)
        super.init()
    }

    override var classForKeyedArchiver: AnyClass? {
        switch content {
        case .expression: return NSExpression.self
        case .predicate(.comparison): return NSComparisonPredicate.self
        case .predicate(.and), .predicate(.or), .predicate(.not): return NSCompoundPredicate.self
        case .predicate(.constant), .predicate(.opaque): return NSPredicate.self
        }
    }

    static var supportsSecureCoding: Bool { true }

    func encode(with coder: NSCoder) {
        switch content {
        case .predicate(let node): PredicateArchiver.encode(node, to: coder)
        case .expression(let node): PredicateArchiver.encode(node, to: coder)
        }
    }

    /// Never called for archives we write (they name the real classes); fails for any other.
    init?(coder: NSCoder) {
        coder.failWithError(ArchivingError.malformed("An archive names the internal class ArchivedNode").nsError)
        return nil
    }
}

/// An array of stand-ins, written as an `NSArray` (`NSSubpredicates`, `NSArguments`,
/// `NSCollection`).
///
/// corelibs' archiver looks every object up in a dictionary to merge equal ones, and
/// `NSArray.hash` is its count: every one-element argument list collides with every other, which
/// makes archiving a tree quadratic (seconds for a thousand function calls). This array is equal
/// only to itself and hashes its identity.
final class ArchivedArray: NSArray {
    private var elements: [AnyObject] = []

    convenience init(_ elements: [AnyObject]) {
        self.init(objects: nil, count: 0)
        self.elements = elements
    }

    override var count: Int { elements.count }

    override func object(at index: Int) -> Any { elements[index] }

    override var hash: Int { ObjectIdentifier(self).hashValue }

    override func isEqual(_ object: Any?) -> Bool { (object as AnyObject?) === self }

    override var classForKeyedArchiver: AnyClass? { NSArray.self }
}
