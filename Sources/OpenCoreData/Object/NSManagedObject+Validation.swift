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
    /// then every property goes through that method (see `ValidationOverride`).
    func validateStoredProperties() throws {
        let layout = self.layout
        let everySlot = ValidationOverride.isOverridden(by: Swift.type(of: self))
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

/// Whether a class overrides `validateValue(_:forKey:)`, read from its vtable, so that a save
/// sends every property of an object through that method only when a subclass may check keys
/// of its own there: boxing each value as an `AnyObject` for a call that only looks the key up
/// again cost a third more on a save of typed objects without rules (`SaveBenchmarks`).
///
/// A class's metadata holds its superclasses' vtable entries at the same places as theirs. Two
/// private classes, one overriding the method and one not, differ from `NSManagedObject` in
/// several words (their own descriptor, initializers); the one word in which only the overriding
/// class differs is the method's entry. A class overrides the method when its word there is not
/// `NSManagedObject`'s. Where that word is not found exactly once (another runtime layout), every
/// class counts as overriding it: slower, never wrong.
enum ValidationOverride {
    private final class Plain: NSManagedObject {}

    private final class Overriding: NSManagedObject {
        override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
            try super.validateValue(value, forKey: key)
        }
    }

    /// The index of the method's entry among the words of a class's metadata, if found.
    private static let entry: Int? = {
        #if _runtime(_ObjC)
            return nil
        #else
            let base = words(of: NSManagedObject.self), plain = words(of: Plain.self), overriding = words(of: Overriding.self)
            guard plain.count >= base.count, overriding.count >= base.count else { return nil }
            let candidates = base.indices.filter { base[$0] == plain[$0] && overriding[$0] != base[$0] }
            return candidates.count == 1 ? candidates[0] : nil
        #endif
    }()

    /// `NSManagedObject`'s word at the entry.
    private static let baseWord: UInt? = entry.map { words(of: NSManagedObject.self)[$0] }

    private static let lock = NSLock()
    // Read and written under `lock` only.
    nonisolated(unsafe) private static var known: [ObjectIdentifier: Bool] = [:]
    /// The class asked last and its answer, in one word (its address, the answer in the low
    /// bit, which metadata alignment leaves free), read without the lock: a save asks for every
    /// object, most of one class.
    private static let last = Atomic<UInt>(0)

    /// Whether `type` (or a class between it and `NSManagedObject`) overrides
    /// `validateValue(_:forKey:)`.
    static func isOverridden(by type: NSManagedObject.Type) -> Bool {
        if type == NSManagedObject.self { return false }
        guard let entry, let baseWord else { return true }
        let key = ObjectIdentifier(type)
        let address = UInt(bitPattern: key)
        let cached = last.load(ordering: .relaxed)
        if cached & ~1 == address { return cached & 1 == 1 }
        lock.lock()
        defer { lock.unlock() }
        if let found = known[key] {
            last.store(address | (found ? 1 : 0), ordering: .relaxed)
            return found
        }
        let classWords = words(of: type)
        let overrides = entry >= classWords.count || classWords[entry] != baseWord
        known[key] = overrides
        last.store(address | (overrides ? 1 : 0), ordering: .relaxed)
        return overrides
    }

    /// The words of a class's metadata from its address point to its end (its `classSize`
    /// less its `classAddressPoint`, read from the metadata's header).
    private static func words(of type: AnyClass) -> [UInt] {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        // Kind and superclass (8 bytes each), flags, instance address point and size (4 each),
        // alignment mask and reserved (2 each), then the class size and address point.
        let classSize = Int(metadata.load(fromByteOffset: 32, as: UInt32.self))
        let addressPoint = Int(metadata.load(fromByteOffset: 36, as: UInt32.self))
        let count = (classSize - addressPoint) / MemoryLayout<UInt>.stride
        guard count > 0, count < 4_096 else { return [] }
        return Array(UnsafeBufferPointer(start: metadata.assumingMemoryBound(to: UInt.self), count: count))
    }
}

extension NSManagedObjectContext {
    /// Runs `validateForInsert()`, `validateForUpdate()` and `validateForDelete()` on the objects
    /// a save writes and throws what they found: one error, or all of them (each object's) in
    /// one `NSValidationMultipleErrorsError`.
    func validateForSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) throws {
        var errors: [NSError] = []
        inserted.forEachUnretained { object in
            do { try object.validateForInsert() } catch { errors.append(error as NSError) }
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
