import Foundation

/// Finding a class by its bare name ("Book", as Xcode writes `representedClassName` with
/// "Current Product Module") when no instance of it was made yet.
///
/// Swift on Linux looks classes up only by module-qualified name (`NSClassFromString("App.Book")`),
/// and a bare name does not say the module. Every loaded Swift image lists its types in its
/// `swift5_type_metadata` section, which the Swift runtime keeps a list of
/// (`swift_enumerateAllMetadataSections`, the same list Swift Testing discovers tests with). Each
/// record there points to a type's context descriptor, which holds the type's name and its parent
/// context, for a top-level type its module. So the module of a bare-named class is found by
/// reading the class descriptors named so; the class itself then comes from `NSClassFromString`
/// with the qualified name, which also checks that it exists.
///
/// Only top-level, non-generic classes are found (nested, private and local classes have no
/// module-qualified name `NSClassFromString` accepts). The scan reads every loaded image's type
/// records once per name (a few thousand records in a test process: well under a millisecond);
/// the result is remembered by `ManagedClassRegistry`.
extension ManagedClassRegistry {
    /// "Module.Name" for each top-level class named `name` in the loaded Swift images, in the
    /// runtime's order of images; empty where the runtime does not list its images.
    static func qualifiedClassNames(bareName name: String) -> [String] {
        guard let enumerate = enumerateAllMetadataSections, !name.isEmpty, !name.contains(".") else { return [] }
        let search = TypeNameSearch(name: name)
        withExtendedLifetime(search) {
            enumerate(
                { sections, context in
                    guard let sections, let context else { return false }
                    Unmanaged<TypeNameSearch>.fromOpaque(context).takeUnretainedValue().scan(sections)
                    return true  // on to the next image
                }, Unmanaged.passUnretained(search).toOpaque())
        }
        return search.found
    }
}

/// A callback of `swift_enumerateAllMetadataSections`: an image's `MetadataSections` and the
/// context given; returns whether to go on.
private typealias MetadataSectionsBody = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Bool

/// The runtime's `swift_enumerateAllMetadataSections(body, context)`.
private typealias EnumerateAllMetadataSections = @convention(c) (MetadataSectionsBody, UnsafeMutableRawPointer?) -> Void

/// The runtime's `swift_enumerateAllMetadataSections`: calls `body` with each loaded image's
/// `MetadataSections` until it returns false. Looked up by name (Swift does not spell it); nil
/// where the runtime has none (Apple platforms list images differently).
private let enumerateAllMetadataSections = runtimeFunction(
    named: "swift_enumerateAllMetadataSections", as: EnumerateAllMetadataSections.self)

/// One search of the loaded images' type records for classes with a given name.
private final class TypeNameSearch {
    /// The name, NUL-terminated, as descriptors store names.
    let name: [CChar]
    let bareName: String
    /// "Module.Name" of each class found.
    var found: [String] = []

    init(name: String) {
        bareName = name
        self.name = Array(name.utf8CString)
    }

    // The layout read here is the Swift runtime's ABI (stable since Swift 5 on ELF platforms):
    // `MetadataSections` is { version, baseAddress, unused0, unused1, then (start, length)
    // ranges: swift5_protocols, swift5_protocol_conformances, swift5_type_metadata, … }; a type
    // metadata record is a 32-bit relative pointer to a context descriptor whose low 2 bits
    // tell how (0: direct); a context descriptor starts { flags: UInt32 (kind in bits 0–4:
    // 0 module, 16 class; bit 7 generic), parent: relative indirectable pointer, name: relative
    // pointer to a C string } — a module's descriptor as well as a type's.
    private static let typeMetadataRangeOffset = 4 * MemoryLayout<UInt>.size + 2 * 2 * MemoryLayout<UInt>.size
    private static let moduleKind: UInt32 = 0
    private static let classKind: UInt32 = 16
    private static let kindMask: UInt32 = 0x1F
    private static let genericFlag: UInt32 = 0x80

    /// Reads one image's type records.
    func scan(_ sections: UnsafeRawPointer) {
        let start = sections.loadUnaligned(fromByteOffset: Self.typeMetadataRangeOffset, as: UInt.self)
        let length = sections.loadUnaligned(fromByteOffset: Self.typeMetadataRangeOffset + MemoryLayout<UInt>.size, as: UInt.self)
        guard let records = UnsafeRawPointer(bitPattern: start), length >= 4 else { return }
        name.withUnsafeBufferPointer { wanted in
            guard let wanted = wanted.baseAddress else { return }
            for offset in stride(from: 0, through: Int(length) - 4, by: 4) {
                let record = records + offset
                let value = record.loadUnaligned(as: Int32.self)
                // Direct descriptors only: an indirect one is another image's, listed there.
                guard value != 0, value & 3 == 0 else { continue }
                let descriptor = record + Int(value)
                let flags = descriptor.loadUnaligned(as: UInt32.self)
                guard flags & Self.kindMask == Self.classKind, flags & Self.genericFlag == 0,
                    let typeName = Self.string(at: descriptor + 8), strcmp(typeName, wanted) == 0,
                    let parent = Self.indirectablePointer(at: descriptor + 4),
                    parent.loadUnaligned(as: UInt32.self) & Self.kindMask == Self.moduleKind,
                    let module = Self.string(at: parent + 8)
                else { continue }
                found.append(String(cString: module) + "." + bareName)
            }
        }
    }

    /// The C string a relative pointer at `field` points to.
    private static func string(at field: UnsafeRawPointer) -> UnsafePointer<CChar>? {
        let value = field.loadUnaligned(as: Int32.self)
        guard value != 0 else { return nil }
        return (field + Int(value)).assumingMemoryBound(to: CChar.self)
    }

    /// What a relative indirectable pointer at `field` points to (low bit set: through a pointer).
    private static func indirectablePointer(at field: UnsafeRawPointer) -> UnsafeRawPointer? {
        let value = field.loadUnaligned(as: Int32.self)
        guard value != 0 else { return nil }
        if value & 1 == 0 { return field + Int(value) }
        return (field + Int(value & ~1)).loadUnaligned(as: UnsafeRawPointer?.self)
    }
}
