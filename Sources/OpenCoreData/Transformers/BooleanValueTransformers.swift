/// `NSIsNil` and `NSIsNotNil`: whether a value is (not) nil, as an `NSNumber`; one way only.
final class IsNilTransformer: ValueTransformer {
    let negated: Bool

    init(negated: Bool) {
        self.negated = negated
        super.init()
    }

    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }

    override func transformedValue(_ value: Any?) -> Any? {
        let isNil = ValueSemantics.unwrapOptional(value).map(ValueSemantics.isNSNull) ?? true
        return NSNumber(value: isNil != negated)
    }
}

/// `NSNegateBoolean`: the negation of a Boolean (`Bool` or `NSNumber`), both ways.
final class NegateBooleanTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        switch ValueSemantics.unwrapOptional(value) {
        case let flag as Bool: return NSNumber(value: !flag)
        case let number as NSNumber: return NSNumber(value: !number.boolValue)
        default: return nil
        }
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? { transformedValue(value) }
}
