import OpenPredicate

/// The rules for entity and property names that Xcode's model editor enforces, so that every
/// name can become a key path step, an SQL table or column name (`Z` + the name in upper case)
/// and a Swift property.
///
/// - An entity name starts with an uppercase letter (`A`–`Z`); a property name (attribute,
///   relationship, fetched property) with a lowercase letter (`a`–`z`).
/// - The rest are ASCII letters, digits and underscores: no spaces, `@`, `.`, quotes or other
///   punctuation (which would break key paths and SQL), and no non-ASCII letters (whose upper
///   case can change the length or merge two names: `ß` becomes `SS`).
/// - A property may not be named like a method of `NSObject` or `NSManagedObject` that takes no
///   argument (`description`, `entity`, `objectID`, …), which Apple's documentation forbids: its
///   value would be unreachable by key-value coding.
/// - At most `maximumLength` characters.
/// - (Checked by the loader, which sees them all:) no two entity names that differ only in
///   case, as SQLite table names ignore case.
///
/// **Differences from Apple:** Apple's runtime accepts any name in a model built in code and
/// leaves the damage for later; the model file loader refuses a name that breaks these rules,
/// as Xcode refuses to save such a file. Non-ASCII letters, which Xcode may accept, are refused.
enum ModelNames {
    /// The longest name accepted: far beyond any real model, short enough for SQLite identifiers.
    static let maximumLength = 256

    /// Names of `NSObject` and `NSManagedObject` methods without arguments (and properties) that a
    /// property name must not repeat. Apple's documentation names `description`; the others are
    /// the ones key-value coding or the framework would reach instead of the property.
    static let reservedPropertyNames: Set<String> = [
        "autorelease", "awakeFromFetch", "awakeFromInsert", "changedValues", "changedValuesForCurrentEvent", "class",
        "classForCoder", "committedValues", "copy", "dealloc", "debugDescription", "description", "didSave",
        "didTurnIntoFault", "entity", "faultingState", "hasChanges", "hasPersistentChangedValues", "hash", "init",
        "isDeleted", "isFault", "isInserted", "isProxy", "isUpdated", "managedObjectContext", "mutableCopy", "objectID",
        "prepareForDeletion", "release", "retain", "retainCount", "self", "superclass", "validateForDelete",
        "validateForInsert", "validateForUpdate", "willSave", "willTurnIntoFault", "zone",
    ]

    /// What is wrong with `name` as an entity name, or nil when it is valid.
    static func problem(entityName name: String) -> String? {
        if let problem = characterProblem(name) { return problem }
        guard let first = name.utf8.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) else {
            return "an entity name must start with an uppercase letter (A-Z)"
        }
        return nil
    }

    /// What is wrong with `name` as a property name, or nil when it is valid.
    static func problem(propertyName name: String) -> String? {
        if let problem = characterProblem(name) { return problem }
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else {
            return "a property name must start with a lowercase letter (a-z)"
        }
        if reservedPropertyNames.contains(name) {
            return "'\(name)' is reserved: it is the name of a method of NSObject or NSManagedObject"
        }
        return nil
    }

    /// The rules entity and property names share: not empty, not too long, only ASCII letters,
    /// digits and underscores.
    private static func characterProblem(_ name: String) -> String? {
        if name.isEmpty { return "a name may not be empty" }
        if name.utf8.count > maximumLength { return "a name may have at most \(maximumLength) characters" }
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                continue
            default:
                return "a name may hold only letters (A-Z, a-z), digits and underscores"
            }
        }
        return nil
    }
}
