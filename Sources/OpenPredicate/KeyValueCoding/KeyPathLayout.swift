@_spi(Reflection) import Swift

/// Names Swift key paths from their components, as the runtime lays them out, and the runtime's
/// metadata of the types they go through: what names `\House.inhabitants` when `House` is a plain
/// `NSObject` subclass, whose `var`s Swift reads through its class's accessors (the key path's
/// description then shows `<computed 0x…>` where Apple's Objective-C runtime has the name).
///
/// - A stored component (a `let`, a `var` of a struct or a `final` class) is named by its field
///   offset among the type's fields.
/// - A component read through a class's getter is named by the getter's entry in the class's
///   vtable: a settable property's entries (getter, setter, modify) come in declaration order, as
///   its stored `var`s do in the field metadata, so the nth settable getter reads the nth `var`.
///   (`@Managed` puts a stored marker of no size beside each property it makes computed, so a
///   managed-object subclass pairs up too.) When the counts differ (a computed property with a
///   setter of your own) the component has no name, rather than a wrong one.
/// - Optional chaining, forcing and wrapping add nothing; a subscript or a get-only computed
///   property has no name.
///
/// Anything this does not recognise (another pointer size, a generic class, a layout it does not
/// expect) gives nil, as before.
enum KeyPathLayout {
    /// `"owner.name"` for `\House.owner?.name`; nil when a component has no name.
    static func name(of keyPath: AnyKeyPath) -> String? {
        guard MemoryLayout<Int>.size == 8 else { return nil }
        // A key path object: the heap header (2 words), the KVC string pointer (1 word), then its
        // buffer: a 32-bit header (size in the low 24 bits) padded to a word, then components.
        let object = UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
        let size = Int(object.load(fromByteOffset: 24, as: UInt32.self) & 0x00FF_FFFF)
        var offset = 32
        let end = offset + size
        var root: Any.Type = type(of: keyPath).rootType
        var names: [String] = []
        var chained = false
        while offset < end {
            let header = object.load(fromByteOffset: offset, as: UInt32.self)
            let payload = header & 0x00FF_FFFF
            var next = offset + 4
            // What names the component, once its value's type is known.
            var name: ((_ valueType: Any.Type, _ isLast: Bool) -> String?)?
            switch (header & 0x7F00_0000) >> 24 {
            case 1, 3:  // stored, in a struct or a class
                var fieldOffset = Int(payload & 0x007F_FFFF)
                if payload & 0x007F_FFFF == 0x007F_FFFF {  // the offset in the next word
                    fieldOffset = Int(object.load(fromByteOffset: next, as: UInt32.self))
                    next += 4
                }
                let type = root
                name = { _, _ in storedName(of: type, offset: fieldOffset) }
            case 2:  // computed: an ID that is a pointer (no stored-property or vtable-offset ID), no arguments
                guard header & 0x0038_0000 == 0 else { return nil }
                next = aligned(next)
                let id = object.load(fromByteOffset: next, as: UnsafeRawPointer.self)
                next += header & 0x0040_0000 != 0 ? 24 : 16  // the ID, the getter, the setter if settable
                let type = root
                let wrapped = chained
                name = { valueType, isLast in
                    accessorName(of: type, methodDescriptor: id) { field, isLazyStorage in
                        // A `lazy var` keeps its value in an optional.
                        if isLazyStorage { return "\(field)" == "Optional<\(valueType)>" }
                        return field == valueType || (isLast && wrapped && "\(valueType)" == "Optional<\(field)>")
                    }
                }
            case 4:  // optional chain, wrap or force
                chained = chained || payload == 0
            default:
                return nil
            }
            // Every component but the last is followed by the type of its value.
            let isLast = next >= end
            var valueType = type(of: keyPath).valueType
            if !isLast {
                next = aligned(next)
                valueType = unsafeBitCast(object.load(fromByteOffset: next, as: UnsafeRawPointer.self), to: Any.Type.self)
                next += 8
            }
            if let name {
                guard let named = name(valueType, isLast) else { return nil }
                names.append(named)
            }
            root = valueType
            offset = next
        }
        return names.isEmpty ? nil : names.joined(separator: ".")
    }

    private static func aligned(_ offset: Int) -> Int { (offset + 7) & ~7 }

    /// The name of the stored property of `type` at `offset`.
    private static func storedName(of type: Any.Type, offset: Int) -> String? {
        field(of: type) { _, fieldOffset, _ in fieldOffset == offset }.map { propertyName($0.name) }
    }

    /// The first stored property of `type` (its superclasses' first) that `matches`.
    private static func field(
        of type: Any.Type, where matches: (_ name: String, _ offset: Int, _ type: Any.Type) -> Bool
    ) -> (name: String, type: Any.Type)? {
        var found: (name: String, type: Any.Type)?
        // `.classType` (1 << 0), spelled by value: the standard library declares it a `static var`.
        let options = _EachFieldOptions(rawValue: type is AnyClass ? 1 << 0 : 0)
        _forEachField(of: type, options: options) { name, offset, fieldType, _ in
            let name = String(cString: name)
            guard matches(name, offset, fieldType) else { return true }
            found = (name, fieldType)
            return false
        }
        return found
    }

    /// The property whose getter is the vtable entry `methodDescriptor` of `type` or one of its
    /// superclasses, when the stored `var` it pairs with has a type that `fits` (told whether the
    /// `var` is a `lazy var`'s storage).
    private static func accessorName(
        of type: Any.Type, methodDescriptor: UnsafeRawPointer, fits: (_ type: Any.Type, _ isLazyStorage: Bool) -> Bool
    ) -> String? {
        guard type is AnyClass else { return nil }
        // Class metadata without Objective-C interop: the kind word, the superclass, then
        // 32 bytes of sizes and flags before the descriptor.
        var metadata: UnsafeRawPointer? = unsafeBitCast(type, to: UnsafeRawPointer.self)
        while let current = metadata {
            if let address = current.load(fromByteOffset: 40, as: UnsafeRawPointer?.self),
                let descriptor = ClassDescriptor(address), descriptor.methods.contains(methodDescriptor)
            {
                guard let variable = descriptor.variable(ofGetter: methodDescriptor),
                    let field = field(of: unsafeBitCast(current, to: Any.Type.self), where: { name, _, _ in name == variable }),
                    fits(field.type, propertyName(variable) != variable)
                else { return nil }
                return propertyName(variable)
            }
            metadata = current.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
        }
        return nil
    }

    /// A stored property's name as key-value coding knows it: a `lazy var`'s storage is named
    /// after the property.
    private static func propertyName(_ field: String) -> String {
        let lazyPrefix = "$__lazy_storage_$_"
        return field.hasPrefix(lazyPrefix) ? String(field.dropFirst(lazyPrefix.count)) : field
    }

    /// A non-generic class's context descriptor, read as far as its fields and vtable.
    private struct ClassDescriptor {
        let descriptor: UnsafeRawPointer
        /// The vtable's method descriptors (8 bytes each: flags, then the implementation).
        let methods: Range<UnsafeRawPointer>

        init?(_ descriptor: UnsafeRawPointer) {
            let flags = descriptor.load(as: UInt32.self)
            // A class (kind 16), not generic, with a vtable.
            guard flags & 0x1F == 16, flags & 0x80 == 0, flags & 0x8000_0000 != 0 else { return nil }
            var trailing = descriptor + 44
            if flags & 0x2000_0000 != 0 { trailing += 4 }  // the resilient superclass
            switch (flags >> 16) & 3 {  // how the metadata is initialized
            case 1: trailing += 12  // singleton
            case 2: trailing += 4  // foreign
            default: break
            }
            let count = Int(trailing.load(fromByteOffset: 4, as: UInt32.self))
            self.descriptor = descriptor
            methods = (trailing + 8)..<(trailing + 8 + 8 * count)
        }

        /// Reads a relative pointer; nil for 0.
        private static func relative(_ pointer: UnsafeRawPointer) -> UnsafeRawPointer? {
            let offset = pointer.load(as: Int32.self)
            return offset == 0 ? nil : pointer + Int(offset)
        }

        /// The kind of a method descriptor: 2 getter, 3 setter (0 method, 1 init, 4/5 coroutines).
        private func kind(at method: UnsafeRawPointer) -> UInt32 { method.load(as: UInt32.self) & 0x0F }

        /// The stored `var` whose getter is `getter`, when the settable getters and the stored
        /// `var`s pair up one to one.
        func variable(ofGetter getter: UnsafeRawPointer) -> String? {
            guard (getter - methods.lowerBound) % 8 == 0, kind(at: getter) == 2 else { return nil }
            var settableGetters: [UnsafeRawPointer] = []
            var method = methods.lowerBound
            while method < methods.upperBound {
                if kind(at: method) == 2, method + 8 < methods.upperBound, kind(at: method + 8) == 3 {
                    settableGetters.append(method)
                }
                method += 8
            }
            let variables = storedVariables()
            guard let index = settableGetters.firstIndex(of: getter), settableGetters.count == variables.count else {
                return nil
            }
            return variables[index]
        }

        /// The names of the class's own stored `var`s, in declaration order.
        private func storedVariables() -> [String] {
            guard let fields = Self.relative(descriptor + 16) else { return [] }
            let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
            let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
            return (0..<count).compactMap { index in
                let record = fields + 16 + index * recordSize
                // Flags: 0x2 for a `var`.
                guard record.load(as: UInt32.self) & 0x2 != 0, let name = Self.relative(record + 8) else { return nil }
                return String(cString: name.assumingMemoryBound(to: CChar.self))
            }
        }
    }
}
