import Foundation

/// The operator of an archived comparison: its type, modifier, options and custom selector.
///
/// Apple archives an `NSComparisonPredicate` as two expressions and a separate
/// `NSPredicateOperator` object holding the rest; this class is that object here. It lives only
/// in archives: a comparison keeps its operator in its `ComparisonNode`.
///
/// The class name is part of the archive format (archives name it `OpenPredicate.PredicateOperator`);
/// renaming it makes existing archives unreadable.
final class PredicateOperator: NSObject, NSSecureCoding {
    let operatorType: ComparisonOperator
    let modifier: ComparisonModifier
    let options: ComparisonOptions
    /// The selector of a `.customSelector` comparison.
    let customSelector: String?

    init(operatorType: ComparisonOperator, modifier: ComparisonModifier, options: ComparisonOptions, customSelector: String?) {
        self.operatorType = operatorType
        self.modifier = modifier
        self.options = options
        self.customSelector = customSelector
        super.init()
    }

    /// The operator of `comparison`.
    convenience init(_ comparison: ComparisonNode) {
        self.init(
            operatorType: comparison.operatorType, modifier: comparison.modifier,
            options: comparison.options, customSelector: comparison.customSelector)
    }

    /// Whether Apple keeps this operator's options under `NSFlags` (string and `IN` operators)
    /// rather than `NSOptions`.
    var optionsKey: String {
        switch operatorType {
        case .matches, .like, .beginsWith, .endsWith, .in, .contains: return ArchiveKey.flags
        default: return ArchiveKey.options
        }
    }

    static var supportsSecureCoding: Bool { true }

    func encode(with coder: NSCoder) {
        PredicateArchiver.encode(self, to: coder)
    }

    init?(coder: NSCoder) {
        guard let decoded = PredicateUnarchiver.predicateOperator(from: coder) else { return nil }
        operatorType = decoded.operatorType
        modifier = decoded.modifier
        options = decoded.options
        customSelector = decoded.customSelector
        super.init()
    }
}
