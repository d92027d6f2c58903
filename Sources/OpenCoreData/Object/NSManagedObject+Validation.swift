import OpenPredicate
import Synchronization

#if !_runtime(_ObjC)
    /// Apple's pointer type for `validateValue(_:forKey:)` and per-key validation methods, so that
    /// their Apple signatures compile unchanged: `&value` of an `AnyObject?` passes as one, and
    /// `value.pointee` reads and replaces the value.
    ///
    /// **Differences from Apple:** without the Objective-C runtime there is no autorelease pool;
    /// this is `UnsafeMutablePointer`, which behaves the same for these methods.
    public typealias AutoreleasingUnsafeMutablePointer<Pointee> = UnsafeMutablePointer<Pointee>
#endif

/// The model's rules for the properties of an entity's objects, checked at save by
/// `validateForInsert()` and `validateForUpdate()` (through `validateValue(_:forKey:)`), as
/// Apple's Core Data checks them:
///
/// - a property that is not optional must have a value (`NSValidationMissingMandatoryPropertyError`;
///   a to-many relationship at least one object);
/// - a value that is not nil must satisfy each of the property's `validationPredicates`, in
///   order; the first that fails gives the error. Its warning (the element of
///   `validationWarnings` at the same index) is the error's code when it is a number (a model
///   file's minimum, maximum and regular expression carry Apple's codes:
///   `NSValidationNumberTooSmallError`, `…StringTooLongError`, `…DateTooLateError`, …), else
///   the error's message, with the code `NSManagedObjectValidationError`;
/// - a to-many relationship that is not empty (or not optional) must hold at least `minCount`
///   objects (`NSValidationRelationshipLacksMinimumCountError`) and at most `maxCount` when that
///   is not 0 (`NSValidationRelationshipExceedsMaximumCountError`).
///
/// One error per property (the first rule it fails), whose `userInfo` names the object
/// (`NSValidationObjectErrorKey`), the key (`NSValidationKeyErrorKey`), the value
/// (`NSValidationValueErrorKey`, when there is one) and, for a predicate, the predicate
/// (`NSValidationPredicateErrorKey`). Several errors become one `NSValidationMultipleErrorsError`
/// with them under `NSDetailedErrorsKey`.
///
/// **Differences from Apple:** transient properties are not checked for a value (Apple's are);
/// an updated object's to-many relationship that was neither read nor changed since it was
/// fetched is not read from the store to be counted again.
extension NSManagedObject {
    // MARK: - Rules of one property

    /// A value passed as an `AnyObject` (`validateValue(_:forKey:)`'s pointer) as the Swift value
    /// it boxes, when it boxes one: a Swift `String`, number or `Date` becomes an opaque box as an
    /// `AnyObject` on Linux, which every later cast would have to open again.
    static func unboxed(_ object: AnyObject?) -> Any? {
        guard let object else { return nil }
        if let hashable = object as? AnyHashable { return hashable.base }
        return object
    }

    /// The error for the first of `property`'s rules that `value` breaks, or nil when it keeps
    /// them all.
    func modelValidationError(of value: Any?, for property: NSPropertyDescription) -> NSError? {
        let value = value.flatMap { ValueSemantics.isNSNull($0) ? nil : $0 }
        if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
            return countError(of: value, for: relationship)
        }
        guard let value else {
            if property.isOptional || property.isTransient { return nil }
            return validationError(NSValidationMissingMandatoryPropertyError, key: property.name, value: nil)
        }
        let predicates = property.validationPredicates
        guard !predicates.isEmpty else { return nil }
        let warnings = property.validationWarnings
        for (index, predicate) in predicates.enumerated() {
            let passes: Bool
            var failure: String?
            do {
                passes = try predicate.evaluate(validating: value, substitutionVariables: nil)
            } catch {
                passes = false
                failure = error.localizedDescription
            }
            guard !passes else { continue }
            let warning = index < warnings.count ? warnings[index] : nil
            let code = Self.code(ofWarning: warning)
            let reason =
                failure.map { "\(property.name) could not be validated with \(predicate.predicateFormat): \($0)" }
                ?? (warning as? String) ?? Self.message(forCode: code, key: property.name)
            return validationError(code, key: property.name, value: value, reason: reason, predicate: predicate)
        }
        return nil
    }

    /// A to-many relationship's rules: a value when required, `minCount` and `maxCount`.
    private func countError(of value: Any?, for relationship: NSRelationshipDescription) -> NSError? {
        let count = Self.memberCount(of: value)
        if count == 0 {
            if relationship.isOptional || relationship.isTransient { return nil }
            return validationError(NSValidationMissingMandatoryPropertyError, key: relationship.name, value: value)
        }
        if count < relationship.minCount {
            return validationError(NSValidationRelationshipLacksMinimumCountError, key: relationship.name, value: value)
        }
        if relationship.maxCount > 0, count > relationship.maxCount {
            return validationError(NSValidationRelationshipExceedsMaximumCountError, key: relationship.name, value: value)
        }
        return nil
    }

    private static func memberCount(of value: Any?) -> Int {
        switch value {
        case nil: 0
        case let objects as [NSManagedObject]: objects.count
        case let set as Set<NSManagedObject>: set.count
        case let set as NSOrderedSet: set.count
        case let set as NSSet: set.count
        case let array as [Any]: array.count
        default: 1
        }
    }

    /// A warning's error code: a number is one (as model files keep them); anything else is a
    /// message for a generic `NSManagedObjectValidationError`.
    private static func code(ofWarning warning: Any?) -> Int {
        switch warning {
        case let number as NSNumber: number.intValue
        case let number as Int: number
        default: NSManagedObjectValidationError
        }
    }

    /// The message of a rule's code, in the form of Apple's ("age is too large.").
    static func message(forCode code: Int, key: String) -> String {
        switch code {
        case NSValidationMissingMandatoryPropertyError: "\(key) is a required value."
        case NSValidationNumberTooLargeError: "\(key) is too large."
        case NSValidationNumberTooSmallError: "\(key) is too small."
        case NSValidationDateTooLateError: "\(key) is too late."
        case NSValidationDateTooSoonError: "\(key) is too soon."
        case NSValidationInvalidDateError: "\(key) is not a valid date."
        case NSValidationStringTooLongError: "\(key) is too long."
        case NSValidationStringTooShortError: "\(key) is too short."
        case NSValidationStringPatternMatchingError: "\(key) does not match its pattern."
        case NSValidationInvalidURIError: "\(key) is not a valid URI."
        case NSValidationRelationshipLacksMinimumCountError: "Too few items in \(key)."
        case NSValidationRelationshipExceedsMaximumCountError: "Too many items in \(key)."
        case NSValidationRelationshipDeniedDeleteError: "\(key) still has objects, which its delete rule (deny) keeps."
        default: "\(key) is not valid."
        }
    }

    /// A validation error of this object, as Apple's `userInfo` names it; its message is
    /// `reason`, or the code's (`message(forCode:key:)`).
    func validationError(
        _ code: Int, key: String, value: Any?, reason: String? = nil, predicate: NSPredicate? = nil
    ) -> NSError {
        var info: [String: Any] = [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: key]
        if let value { info[NSValidationValueErrorKey] = value }
        if let predicate { info[NSValidationPredicateErrorKey] = predicate }
        return CoreDataError.make(code: code, reason: reason ?? Self.message(forCode: code, key: key), userInfo: info)
    }

    // MARK: - Whole objects

    /// Checks the object's stored properties against the model's rules: what
    /// `validateForInsert()` and `validateForUpdate()` do by default.
    ///
    /// Only the properties that have rules are checked (see `PropertyLayout.checkedSlots`),
    /// unless the object's class overrides `validateValue(_:forKey:)`, which may check any key:
    /// then every property goes through that method (see `MethodOverride`).
    func validateStoredProperties() throws {
        let layout = self.layout
        let everySlot = MethodOverride.validateValue.isOverridden(by: Swift.type(of: self))
        let slots = everySlot ? Array(0..<layout.count) : layout.checkedSlots
        guard !slots.isEmpty else { return }
        let current = values
        var errors: [NSError] = []
        for slot in slots {
            let property = layout.properties[slot]
            var value: Any? = current[slot: slot]
            if case .toMany(let relationship) = layout.kinds[slot] {
                // Not read since it was fetched and not changed: it was valid when it was saved,
                // and is not read from the store to be counted again.
                if ValueSemantics.objectCast(value, to: RelationshipFault.self) != nil, !isChangedKey(property.name) {
                    continue
                }
                value = members(relationship)
            }
            guard everySlot else {
                // The model's rules on the value as it is (boxing it as an `AnyObject` would make
                // every cast the predicates make unbox it again).
                if let error = modelValidationError(of: value, for: property) { errors.append(error) }
                continue
            }
            var object: AnyObject? = value.map { $0 as AnyObject }
            do {
                try validateValue(&object, forKey: property.name)
            } catch {
                errors.append(error as NSError)
            }
        }
        if let error = Self.combinedValidationError(errors) { throw error }
    }

    /// Checks the deny delete rule: a relationship whose delete rule is deny must hold no object
    /// that is not itself deleted (`NSValidationRelationshipDeniedDeleteError`). What
    /// `validateForDelete()` does by default.
    func validateDeleteRules() throws {
        var errors: [NSError] = []
        for case let relationship as NSRelationshipDescription in entity.properties
        where relationship.deleteRule == .denyDeleteRule {
            let destinations =
                relationship.isToMany
                ? members(relationship)
                : (primitiveValue(forKey: relationship.name) as? NSManagedObject).map { [$0] } ?? []
            let remaining = destinations.filter { !$0.isDeleted }
            guard !remaining.isEmpty else { continue }
            errors.append(
                validationError(
                    NSValidationRelationshipDeniedDeleteError, key: relationship.name,
                    value: relationship.isToMany ? Set(remaining) as Any : remaining[0]))
        }
        if let error = Self.combinedValidationError(errors) { throw error }
    }

    /// One error for several: nil for none, the error itself for one, and for more an
    /// `NSValidationMultipleErrorsError` with each under `NSDetailedErrorsKey` (the errors of a
    /// multiple error among them taken out of it, so that the list is flat, as Apple's save
    /// reports it).
    static func combinedValidationError(_ errors: [NSError]) -> NSError? {
        let flat = errors.flatMap { error -> [NSError] in
            guard error.domain == NSCocoaErrorDomain, error.code == NSValidationMultipleErrorsError,
                let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError], !detailed.isEmpty
            else { return [error] }
            return detailed
        }
        guard flat.count > 1 else { return flat.first }
        return CoreDataError.make(
            code: NSValidationMultipleErrorsError, reason: "Multiple validation errors occurred.",
            userInfo: [NSDetailedErrorsKey: flat])
    }
}

extension NSManagedObjectContext {
    /// Runs `validateForInsert()`, `validateForUpdate()` and `validateForDelete()` on the objects
    /// a save writes and throws what they found: one error, or all of them (each object's) in
    /// one `NSValidationMultipleErrorsError`.
    ///
    /// Inserted objects are asked only when one may find something: when one of them has rules
    /// (`insertsHaveRules`) or a class overrides `validateForInsert()` or
    /// `validateValue(_:forKey:)`. Otherwise `NSManagedObject`'s own `validateForInsert()` would
    /// check nothing on any of them, and asking would be a pass over 10^5 new objects.
    func validateForSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) throws {
        var errors: [NSError] = []
        if insertsHaveRules || MethodOverride.validateForInsert.isOverriddenByAnyClass
            || MethodOverride.validateValue.isOverriddenByAnyClass
        {
            inserted.forEachUnretained { object in
                do { try object.validateForInsert() } catch { errors.append(error as NSError) }
            }
        }
        updated.forEachUnretained { object in
            do { try object.validateForUpdate() } catch { errors.append(error as NSError) }
        }
        deleted.forEachUnretained { object in
            do { try object.validateForDelete() } catch { errors.append(error as NSError) }
        }
        if let error = NSManagedObject.combinedValidationError(errors) { throw error }
    }
}
