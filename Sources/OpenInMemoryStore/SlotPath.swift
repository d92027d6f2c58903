import OpenPredicate
import OpenStoreCore

/// A key path resolved to slots once: to-one relationships followed by an attribute (or, where
/// allowed, ending in a to-one relationship). Reads a row's value as a `StoreValue` without going
/// through `Any`: the fast way for sort keys and dictionary columns.
struct SlotPath {
    /// What the path ends in.
    enum End: Equatable {
        case attribute(AttributeKind)
        case toOne
    }

    let end: End
    /// For each step, the slot it reads in each entity (by entity number minus one; nil where
    /// the entity has no such property of the right kind).
    private let steps: [[Int?]]

    /// Resolves `keyPath` against `entityID`; nil when it is not such a path (a to-many step,
    /// a collection operator, an unknown key — the row views handle those, and report unknown
    /// keys).
    init?(_ keyPath: String, entityID: Int, layouts: [EntityLayout], allowsToOneEnd: Bool) {
        guard !keyPath.isEmpty, !keyPath.contains("@"), !keyPath.hasPrefix("$"), layouts.indices.contains(entityID - 1) else {
            return nil
        }
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var layout = layouts[entityID - 1]
        var steps: [[Int?]] = []
        var end: End?
        for (index, component) in components.enumerated() {
            guard let slot = layout.slotsByName[component] else { return nil }
            let isLast = index == components.count - 1
            switch layout.slots[slot] {
            case .toOne(let destination):
                guard !isLast || allowsToOneEnd, layouts.indices.contains(destination - 1) else { return nil }
                steps.append(Self.slots(named: component, in: layouts) { if case .toOne = $0 { true } else { false } })
                layout = layouts[destination - 1]
                if isLast { end = .toOne }
            case .attribute(let kind) where isLast:
                steps.append(Self.slots(named: component, in: layouts) { $0 == .attribute(kind) })
                end = .attribute(kind)
            default:
                return nil
            }
        }
        guard let end else { return nil }
        self.end = end
        self.steps = steps
    }

    private static func slots(named name: String, in layouts: [EntityLayout], where fits: (EntityLayout.Slot) -> Bool) -> [Int?] {
        layouts.map { layout in
            layout.slotsByName[name].flatMap { fits(layout.slots[$0]) ? $0 : nil }
        }
    }

    /// The row's value at the path (`.null` where a step is empty or its destination is gone),
    /// in the form the row view's Swift value for it has (a `Float` attribute at `Float`
    /// precision, a number kept in another numeric case converted to the attribute's).
    func value(of view: RowView, in graph: RowGraph) -> StoreValue {
        var row = view.row
        for (index, slots) in steps.enumerated() {
            guard let current = row, let slot = slots[current.key.entityID - 1] else { return .null }
            let value = current.values[slot]
            guard index == steps.count - 1 else {
                guard case .object(let destination) = value else { return .null }
                row = graph.row(for: destination)
                continue
            }
            switch end {
            case .attribute(let kind):
                return Self.normalized(value, kind: kind)
            case .toOne:
                guard case .object(let destination) = value, graph.row(for: destination) != nil else { return .null }
                return value
            }
        }
        return .null
    }

    @inline(__always)
    private static func normalized(_ value: StoreValue, kind: AttributeKind) -> StoreValue {
        switch (kind, value) {
        case (_, .null), (.integer16, .integer), (.integer32, .integer), (.integer64, .integer), (.double, .double),
            (.decimal, .decimal), (.boolean, .bool), (.string, .string), (.date, .date), (.binary, .data),
            (.transformable, .data), (.uuid, .uuid), (.uri, .url), (.objectID, .object):
            return value
        case (.float, .double(let double)):
            return .double(Double(Float(double)))
        default:
            return StoreValue(inferring: value.swiftValue(kind: kind)) ?? value
        }
    }
}
