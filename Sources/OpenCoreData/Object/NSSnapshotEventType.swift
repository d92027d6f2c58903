import OpenPredicate

/// Why an object's values were replaced by another snapshot of them, as
/// `NSManagedObject.awake(fromSnapshotEvents:)` receives it, with Apple's raw values.
///
/// This package sends `.refresh` (`refresh(_:mergeChanges: true)` of an object with unsaved
/// changes), `.rollback` (`rollback()` of a changed or deleted object) and `.mergePolicy` (a merge
/// policy that resolved a conflict of the object at save). The undo events are never sent: there
/// is no `UndoManager` here.
///
/// See [NSSnapshotEventType](https://developer.apple.com/documentation/coredata/nssnapshoteventtype).
public struct NSSnapshotEventType: OptionSet, Sendable, Hashable {
    /// The raw value: Apple's bit of each event.
    public let rawValue: UInt

    /// Creates a set of events from Apple's raw value.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// An undo of an insertion (raw value 2).
    public static let undoInsertion = NSSnapshotEventType(rawValue: 1 << 1)
    /// An undo of a deletion (raw value 4).
    public static let undoDeletion = NSSnapshotEventType(rawValue: 1 << 2)
    /// An undo of a property change (raw value 8).
    public static let undoUpdate = NSSnapshotEventType(rawValue: 1 << 3)
    /// The context was rolled back (raw value 16).
    public static let rollback = NSSnapshotEventType(rawValue: 1 << 4)
    /// The object was refreshed (raw value 32).
    public static let refresh = NSSnapshotEventType(rawValue: 1 << 5)
    /// A merge policy resolved a conflict during a save (raw value 64).
    public static let mergePolicy = NSSnapshotEventType(rawValue: 1 << 6)
}
