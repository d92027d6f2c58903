import Foundation

/// A type that can tell the string form of its Swift key paths that have no name in their
/// description: `NSManagedObject`, whose `@Managed` properties are computed (Swift describes
/// such a key path as `\Employee.<computed 0x…>`).
package protocol KeyPathNaming {
    /// The key path string of `keyPath`, whose root is this type (`"department.name"`), or nil
    /// when it has none.
    static func keyPathName(of keyPath: AnyKeyPath) -> String?
}

/// The string form of Swift key paths: what `NSExpression(forKeyPath:)` and
/// `NSSortDescriptor(keyPath:ascending:)` use as the key.
enum KeyPathNames {
    /// `\Root.a?.b` → `"a.b"`: asked of the root type when it names its key paths
    /// (`KeyPathNaming`), else read from the description, else from the key path's components
    /// (`KeyPathLayout`: `var`s of classes that are not `final`); nil when none knows it.
    static func name(of keyPath: AnyKeyPath) -> String? {
        if let naming = type(of: keyPath).rootType as? KeyPathNaming.Type {
            if let name = naming.keyPathName(of: keyPath) { return name }
        }
        return describedName(of: keyPath) ?? KeyPathLayout.name(of: keyPath)
    }

    /// The name in the key path's description, for stored-property components; nil for key
    /// paths with computed or subscript components, which describe themselves as
    /// `<computed 0x… (Type)>`. The root type's name ends at the first dot (a nested type
    /// describes itself by its innermost name).
    static func describedName(of keyPath: AnyKeyPath) -> String? {
        let description = String(describing: keyPath)
        guard description.hasPrefix("\\"), let dot = description.firstIndex(of: ".") else { return nil }
        let path = description[description.index(after: dot)...].filter { $0 != "?" && $0 != "!" }
        guard !path.isEmpty, !path.contains("<"), !path.contains("["), !path.contains(" ") else { return nil }
        return path
    }
}
