import OpenPredicate

extension NSManagedObject: KeyPathNaming {
    /// The key path string of a Swift key path rooted at this class (`\Book.author?.name` →
    /// `"author.name"`), read once on a stand-in object; nil when it reads no `@Managed` property.
    package static func keyPathName(of keyPath: AnyKeyPath) -> String? {
        KeyPathRecorder.name(of: keyPath, root: self)
    }
}

/// Names Swift key paths of managed objects.
///
/// On Linux a key path to a `@Managed` property is a computed component with no name (Apple's
/// take the name from the Objective-C property). So the key path is read once on a stand-in
/// object of its root class: each `@Managed` property read on a stand-in appends its key to the
/// record and returns a placeholder of its type — for a relationship, a stand-in of the
/// destination class, so `\Book.author.name` goes on to record `name`. Names are cached by key
/// path, so a key path costs one stand-in per process.
///
/// A key path to something other than `@Managed` properties (a computed property that reads
/// several) records what it reads; one that reads nothing has no name here.
enum KeyPathRecorder {
    /// The entity stand-ins are made with; `NSManagedObject.init(entity:insertInto:)` recognises it.
    static let standInEntity: NSEntityDescription = {
        let entity = NSEntityDescription()
        entity.name = "KeyPathStandIn"
        entity.isKeyPathStandIn = true
        return entity
    }()

    /// Recursive: a subclass's initializer may itself name a key path.
    private static let lock = NSRecursiveLock()
    // These three: read and written under `lock` only.
    nonisolated(unsafe) private static var names: [AnyKeyPath: String] = [:]
    nonisolated(unsafe) private static var unnamed: Set<AnyKeyPath> = []
    /// The keys read on stand-ins so far (only while `lock` is held).
    nonisolated(unsafe) private static var recorded: [String] = []

    static func name(of keyPath: AnyKeyPath, root: NSManagedObject.Type) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let name = names[keyPath] { return name }
        if unnamed.contains(keyPath) { return nil }
        let outer = recorded
        defer { recorded = outer }
        let standIn = root.init(entity: standInEntity, insertInto: nil)
        recorded = []  // whatever the initializer read
        _ = standIn[keyPath: keyPath]
        guard !recorded.isEmpty else {
            unnamed.insert(keyPath)
            return nil
        }
        let name = recorded.joined(separator: ".")
        names[keyPath] = name
        return name
    }

    /// What a `@Managed` property of a stand-in returns: it records `key`, and returns a
    /// stand-in of a managed-object type (optional or not), nil for an optional, an empty
    /// collection, a zero or empty value, or (for other types) a value that is never read.
    static func read<Value>(_ key: String) -> Value {
        recorded.append(key)
        let wrapped = (Value.self as? OptionalType.Type)?.wrappedType ?? Value.self
        if let destination = wrapped as? NSManagedObject.Type,
            let standIn = destination.init(entity: standInEntity, insertInto: nil) as? Value
        {
            return standIn
        }
        if let none = Optional<Any>.none as? Value { return none }
        if let placeholder = (Value.self as? KeyPathPlaceholder.Type)?.keyPathPlaceholder as? Value {
            return placeholder
        }
        if _isPOD(Value.self) {
            // All-zero bits are a valid value of a plain-data type (numbers, enums without payload).
            let bytes = UnsafeMutableRawPointer.allocate(
                byteCount: max(MemoryLayout<Value>.size, 1), alignment: MemoryLayout<Value>.alignment)
            defer { bytes.deallocate() }
            bytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(MemoryLayout<Value>.size, 1))
            return bytes.load(as: Value.self)
        }
        if Value.self is AnyObject.Type {
            // Any object stands in: the key path's result is dropped unread.
            return unsafeBitCast(standInObject, to: Value.self)
        }
        AppleException.invalidArgument(
            "Could not extract a String from KeyPath: the @Managed property '\(key)' has the type \(Value.self), "
                + "for which no stand-in value can be made; declare it optional")
    }

    // Never read or changed: its address stands in for a value the key path drops unread.
    nonisolated(unsafe) private static let standInObject = NSObject()
}

/// `Optional`'s wrapped type, for types known only as `Any.Type`.
private protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// Types a `@Managed` property of a stand-in can return a value of.
private protocol KeyPathPlaceholder {
    static var keyPathPlaceholder: Self { get }
}

extension String: KeyPathPlaceholder { static var keyPathPlaceholder: String { "" } }
extension Date: KeyPathPlaceholder { static var keyPathPlaceholder: Date { Date(timeIntervalSinceReferenceDate: 0) } }
extension Data: KeyPathPlaceholder { static var keyPathPlaceholder: Data { Data() } }
extension UUID: KeyPathPlaceholder { static var keyPathPlaceholder: UUID { UUID() } }
extension URL: KeyPathPlaceholder { static var keyPathPlaceholder: URL { URL(fileURLWithPath: "/") } }
extension Decimal: KeyPathPlaceholder { static var keyPathPlaceholder: Decimal { 0 } }
extension Set: KeyPathPlaceholder { static var keyPathPlaceholder: Set { [] } }
extension Array: KeyPathPlaceholder { static var keyPathPlaceholder: Array { [] } }
extension Dictionary: KeyPathPlaceholder { static var keyPathPlaceholder: Dictionary { [:] } }
