import OpenPredicate
import Synchronization

/// The `NSManagedObject` subclasses seen so far, by class name with and without module, so that
/// an entity whose `managedObjectClassName` is a bare name ("Employee", as Xcode writes it with
/// "Current Product Module") finds its class. Swift on Linux can look up a class only by its
/// module-qualified name, so a subclass is registered when an instance is created or its
/// `fetchRequest()` is called, and a bare name never seen is looked for in the loaded images'
/// type records (`ManagedClassRegistry+TypeMetadata`).
enum ManagedClassRegistry {
    private static let lock = NSLock()
    // Both read and written under `lock` only.
    nonisolated(unsafe) private static var classes: [String: NSManagedObject.Type] = [:]
    nonisolated(unsafe) private static var known: Set<ObjectIdentifier> = []
    /// Counts the classes registered: a context remembers each entity's class until it changes
    /// (`NSManagedObjectContext.managedObjectClass(for:)`).
    static let generation = Atomic<Int>(0)

    static func register(_ type: NSManagedObject.Type) {
        guard type != NSManagedObject.self else { return }
        lock.lock()
        defer { lock.unlock() }
        guard known.insert(ObjectIdentifier(type)).inserted else { return }
        generation.add(1, ordering: .releasing)
        // Before the class can be found by name, so before any object of it is in a context.
        for (_, method) in MethodOverride.named { method.noteRegistered(type) }
        let qualified = qualifiedName(of: type)
        let bare = bareName(of: type)
        if classes[qualified] == nil {
            classes[qualified] = type
            classes[bare] = type
        }
    }

    /// The class a `managedObjectClassName` names: a registered subclass, one Swift finds by its
    /// qualified name, a top-level subclass of that bare name in a loaded image (see
    /// `ManagedClassRegistry+TypeMetadata`), or `NSManagedObject`.
    ///
    /// Where classes of several modules share the bare name, the first `NSManagedObject`
    /// subclass in the runtime's order of images is used; a model that must tell them apart
    /// names the module ("App.Book").
    static func managedClass(named name: String) -> NSManagedObject.Type {
        if name == "NSManagedObject" { return NSManagedObject.self }
        lock.lock()
        let registered = classes[name]
        lock.unlock()
        if let registered { return registered }
        var found = NSClassFromString(name) as? NSManagedObject.Type
        if found == nil {
            found = qualifiedClassNames(bareName: name).lazy.compactMap { NSClassFromString($0) as? NSManagedObject.Type }.first
        }
        if let found { register(found) }
        lock.lock()
        classes[name] = found ?? NSManagedObject.self  // remembered, found or not: the lookup is slow
        lock.unlock()
        return found ?? NSManagedObject.self
    }

    /// `Module.Class`; unlike `NSStringFromClass`, never stops the process (for a private or
    /// local class Swift spells the context out instead).
    static func qualifiedName(of type: AnyClass) -> String { String(reflecting: type) }

    /// The class's own name, without module or context.
    static func bareName(of type: AnyClass) -> String {
        let qualified = qualifiedName(of: type)
        return qualified.split(separator: ".").last.map(String.init) ?? qualified
    }
}
