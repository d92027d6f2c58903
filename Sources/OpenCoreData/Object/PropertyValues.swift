import OpenStoreCore

/// Where each stored property of an entity sits in its objects' values: the attributes and
/// relationships of `NSEntityDescription.properties` (inherited first), in that order, which is
/// also the order of the store schema's slots (`SchemaLowering`), so that a fetched row's values
/// go to the same indexes without a name being looked up. Fetched properties have no slot.
///
/// Made once per entity and shared by all its objects; an entity that changes while it is still
/// editable gets a new layout, and objects made before keep the one they were made with.
final class PropertyLayout {
    /// How a fetched row's value of a slot becomes the object's (a trivial enum, read per row
    /// without retaining anything).
    enum Decoding {
        /// Not kept by stores.
        case transient
        case attribute(AttributeKind)
        case toOne
        case toMany
    }

    /// How a slot's value is kept and shown.
    enum Kind {
        case attribute
        case toOne
        /// Kept as `[NSManagedObject]`, shown as a set (an `NSOrderedSet` when ordered).
        case toMany(NSRelationshipDescription)
    }

    /// The stored properties, by slot.
    let properties: [NSPropertyDescription]
    let kinds: [Kind]
    let decodings: [Decoding]
    /// The stored properties' names, by slot.
    let names: [String]
    /// Their lengths in UTF-8, by slot.
    private let nameLengths: [Int]
    /// Their two words, by slot (see `slot(named:)`).
    private let nameWords: [NameWords]
    let slotByName: [String: Int]
    /// A slot array with no values, shared (copy on write) by every `PropertyValues` made empty.
    let emptySlots: [Any?]
    /// The slots whose property has a rule a save checks (see `NSManagedObject+Validation`): not
    /// optional, validation predicates, or a to-many relationship's minimum or maximum count.
    /// Empty for most entities, which then cost a save nothing to validate.
    let checkedSlots: [Int]

    init(entity: NSEntityDescription) {
        var properties: [NSPropertyDescription] = []
        var kinds: [Kind] = []
        var decodings: [Decoding] = []
        for property in entity.properties {
            switch property {
            case let relationship as NSRelationshipDescription:
                kinds.append(relationship.isToMany ? .toMany(relationship) : .toOne)
                decodings.append(relationship.isTransient ? .transient : relationship.isToMany ? .toMany : .toOne)
            case let attribute as NSAttributeDescription:
                kinds.append(.attribute)
                decodings.append(
                    attribute.isTransient ? .transient : .attribute(SchemaLowering.attributeKind(attribute.attributeType)))
            default:
                continue
            }
            properties.append(property)
        }
        self.properties = properties
        names = properties.map(\.name)
        nameLengths = names.map(\.utf8.count)
        nameWords = names.map(NameWords.init)
        self.kinds = kinds
        self.decodings = decodings
        var slots: [String: Int] = Dictionary(minimumCapacity: properties.count)
        for (slot, property) in properties.enumerated() { slots[property.name] = slot }
        slotByName = slots
        emptySlots = Array(repeating: nil, count: properties.count)
        checkedSlots = properties.indices.filter { slot in
            let property = properties[slot]
            if !property.validationPredicates.isEmpty || (!property.isOptional && !property.isTransient) { return true }
            guard let relationship = property as? NSRelationshipDescription, relationship.isToMany else { return false }
            return relationship.minCount > 0 || relationship.maxCount > 0
        }
    }

    var count: Int { properties.count }

    /// The slot of a stored property. A name that is the same string as the property's (same
    /// two words: a short name, or the property's own string) is found without comparing
    /// characters or calling anything; another is compared (see `slot(comparing:)`).
    @inline(__always)
    func slot(named name: String) -> Int? {
        let words = NameWords(name)
        for slot in nameWords.indices where nameWords[slot] == words { return slot }
        return slot(comparing: name)
    }

    /// The slot of a stored property whose name is not the same string as `name`'s: names are
    /// compared one by one for entities of a few properties (lengths first: comparing two
    /// strings that differ costs more than comparing counts), and looked up by hash for larger
    /// ones.
    @inline(never)
    func slot(comparing name: String) -> Int? {
        guard names.count <= Self.scanLimit else { return slotByName[name] }
        let length = name.utf8.count
        for slot in names.indices where nameLengths[slot] == length && names[slot] == name { return slot }
        return nil
    }

    /// The two words a `String` is made of: equal words are equal strings (the converse does not
    /// hold: a long string's words point to its storage).
    struct NameWords: Equatable {
        let count: UInt64, object: UInt64
        init(_ name: String) { (count, object) = unsafeBitCast(name, to: (UInt64, UInt64).self) }
    }

    /// Up to this many properties, `slot(named:)` compares names rather than hashing.
    private static let scanLimit = 12
}

/// The values of one object's properties, by slot of its entity's `PropertyLayout` (no hashing
/// of names on the fetch path), read and written by name like a dictionary elsewhere. A nil slot
/// means no value, as a missing key did.
struct PropertyValues: Sequence {
    let layout: PropertyLayout
    /// A value per slot of the layout, then, only when an entity was edited after the object was
    /// made, one more element: a `[String: Any]` of values under names outside the layout (kept
    /// there rather than in a field of its own, which every object would carry).
    private var slots: [Any?]

    /// No values (sharing the layout's empty slots until the first write).
    init(layout: PropertyLayout) {
        self.layout = layout
        slots = layout.emptySlots
    }

    /// Values made slot by slot (`slots.count == layout.count`), as a fetched row's are.
    init(layout: PropertyLayout, slots: [Any?]) {
        self.layout = layout
        self.slots = slots
    }

    /// The value of the property at `slot` of the layout.
    subscript(slot slot: Int) -> Any? {
        get { slots[slot] }
        set { slots[slot] = newValue }
    }

    /// The value at `slot` as a store holds it (`StoreValue(_:kind:property:)`), converted where
    /// it is held rather than copied out first.
    func storeValue(slot: Int, kind: AttributeKind, property: @autoclosure () -> String) throws -> StoreValue {
        // Through the buffer: the array's subscript would copy the value out (retaining it).
        try slots.withUnsafeBufferPointer { buffer in
            // A slot the values do not have holds no value.
            guard buffer.indices.contains(slot), let base = buffer.baseAddress else { return .null }
            return try StoreValue(at: base + slot, kind: kind, property: property())
        }
    }

    /// The value of a property by name; nil when it has none.
    subscript(name: String) -> Any? {
        get {
            if let slot = layout.slot(named: name) { return slots[slot] }
            return others[name]
        }
        set {
            if let slot = layout.slot(named: name) {
                slots[slot] = newValue
            } else {
                var others = self.others
                others[name] = newValue
                if slots.count == layout.count { slots.append(nil) }
                slots[layout.count] = others
            }
        }
    }

    /// Values under names outside the layout (see `slots`).
    private var others: [String: Any] {
        slots.count > layout.count ? slots[layout.count] as? [String: Any] ?? [:] : [:]
    }

    /// The names of the properties that have a value.
    var keys: [String] { map(\.key) }

    /// Forgets every value.
    mutating func removeAll() {
        slots = layout.emptySlots
    }

    /// Calls `body` with a slot's value taken out (nil inside when it has none) and puts back
    /// what `body` leaves, so that an array kept there is changed in place, not copied.
    mutating func modify<Result>(slot: Int, _ body: (inout Any?) -> Result) -> Result {
        body(&slots[slot])
    }

    /// The values that are set, with their property names: slots in layout order, then others.
    func makeIterator() -> Iterator { Iterator(values: self) }

    struct Iterator: IteratorProtocol {
        fileprivate let values: PropertyValues
        private var slot = 0
        private var others: Dictionary<String, Any>.Iterator

        fileprivate init(values: PropertyValues) {
            self.values = values
            others = values.others.makeIterator()
        }

        mutating func next() -> (key: String, value: Any)? {
            while slot < values.layout.count {
                defer { slot += 1 }
                if let value = values.slots[slot] { return (values.layout.names[slot], value) }
            }
            return others.next()
        }
    }
}
