/// `value as? T` for a class `T` that no value type bridges to (`NSManagedObject`,
/// `RelationshipFault`), without what a failing cast costs on Linux: casting a Swift value to a
/// class first bridges it to a Foundation object, so asking whether a to-many relationship's
/// array is a fault turned the whole array into an `NSArray`. Values that are not class
/// instances are ruled out by their type's kind instead.
@inline(__always)
func objectCast<T: AnyObject>(_ value: Any?, to type: T.Type) -> T? {
    guard let value, Swift.type(of: value) is AnyClass else { return nil }
    return value as? T
}
