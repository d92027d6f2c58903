import Foundation

extension AnyKeyPath {
    /// The key path's string form for key-value coding (`\Book.author?.name` → `"author.name"`),
    /// or nil when it has none; what `NSExpression(forKeyPath:)` and
    /// `NSSortDescriptor(keyPath:ascending:)` use.
    ///
    /// Libraries that turn Swift key paths into Core Data key paths read this property of the
    /// standard library. On Linux the standard library's answer is always nil (it comes from the
    /// Objective-C runtime); in files that import CoreData this property is used instead.
    ///
    /// **Differences from Apple:** key paths of `@Managed` properties are named as Apple names
    /// `@NSManaged` ones; key paths of stored properties of other types are named too (Apple's
    /// answer is nil for properties that are not `@objc`).
    public var _kvcKeyPathString: String? {
        KeyPathNames.name(of: self)
    }
}
