import Foundation

/// AND, OR and NOT archive under Apple's keys, `NSCompoundPredicateType` and `NSSubpredicates`.
///
/// The archive names the class `OpenPredicate.CompoundPredicate`: the name is part of the
/// archive format, so renaming the class makes existing archives unreadable.
extension CompoundPredicate: NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    func encode(with coder: NSCoder) {
        PredicateArchiver.encode(node, to: coder)
    }

    convenience init?(coder: NSCoder) {
        guard let node = PredicateUnarchiver.compound(from: coder) else { return nil }
        self.init(node: node)
    }
}
