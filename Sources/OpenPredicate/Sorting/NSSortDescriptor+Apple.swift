import Foundation

extension NSSortDescriptor {
    /// The key path this descriptor sorts by (`"address.city"`), or nil when it sorts the objects
    /// themselves.
    ///
    /// **Differences from Apple:** nil also for a descriptor made from a Swift key path that has
    /// no string form (see `init(keyPath:ascending:)`).
    public var key: String? { keyString }

    /// The name of the method used to compare values, such as `"compare:"`.
    ///
    /// **Differences from Apple:** a `String` (the selector's name) instead of an Objective-C
    /// `Selector`, which Linux does not have. Nil for comparator-based descriptors and for those
    /// made with corelibs' `init(keyPath:ascending:)`.
    public var selector: String? { selectorName }

    /// Allows a sort descriptor decoded from an archive to be evaluated.
    ///
    /// Apple refuses to evaluate securely decoded descriptors until this is called. Descriptors
    /// here are always ready to evaluate, so this does nothing.
    ///
    /// **Differences from Apple:** a no-op. Descriptors made with `init(key:ascending:)` and
    /// `init(key:ascending:selector:)` archive with `NSKeyedArchiver`; corelibs' own
    /// `init(keyPath:ascending:)` descriptors and comparator descriptors do not.
    public func allowEvaluation() {}
}
