import Foundation

/// `TRUEPREDICATE` and `FALSEPREDICATE` archive as one class with `NSPredicateValue` (Apple
/// uses two classes without keys, `NSTruePredicate` and `NSFalsePredicate`).
///
/// The archive names the class `OpenPredicate.ConstantPredicate`: the name is part of the
/// archive format, so renaming the class makes existing archives unreadable.
extension ConstantPredicate: NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    func encode(with coder: NSCoder) {
        PredicateArchiver.encode(.constant(evaluate(with: nil)), to: coder)
    }

    convenience init?(coder: NSCoder) {
        guard let value = PredicateUnarchiver.constantPredicate(from: coder) else { return nil }
        self.init(value: value)
    }
}
