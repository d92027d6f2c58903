import OpenPredicate

// The `userInfo` keys of the errors Core Data throws, with Apple's values
// (https://developer.apple.com/documentation/coredata/core-data-constants).

/// Under this key, an `NSValidationMultipleErrorsError` holds the validation errors it stands
/// for (`[NSError]`, one per failed rule of each object).
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// The object that failed to validate.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// The key (property name) that failed to validate.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// For a rule of a property's `validationPredicates`, the predicate the value failed.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// The value that failed to validate (absent when it is nil).
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// The stores an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// The objects an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
