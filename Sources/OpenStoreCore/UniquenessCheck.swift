import OpenPredicate

/// Finds the uniqueness constraints a save would break, the same way for every store: rows of
/// the save that share a constraint's values, and rows of the save whose values a stored row
/// (not rewritten or deleted by the same save) already has.
///
/// ```swift
/// let violations = try UniquenessCheck(schema: schema).violations(in: changes) { entityID, slots, values in
///     try storedRows(of: entityID, matching: slots, values)   // the store's lookup
/// }
/// ```
///
/// Values are compared as SQLite's unique indexes compare them: a row with nil for any
/// property of a constraint never conflicts; strings by their UTF-8 bytes (no Unicode
/// normalization); numbers by value (`1`, `1.0` and `true` are equal).
package struct UniquenessCheck {
    package let schema: StoreSchema

    package init(schema: StoreSchema) {
        self.schema = schema
    }

    /// Every violation of the save, in the order the save first names each value.
    ///
    /// - Parameter existing: the store's rows of the given entity (and its sub-entities) whose
    ///   values at `slots` equal `values`.
    package func violations(
        in changes: SaveChanges, existing: (_ entityID: Int, _ slots: [Int], _ values: [StoreValue]) throws -> [RowSnapshot]
    ) throws -> [ConstraintViolation] {
        struct Group {
            let entityID: Int
            let slots: [Int]
            let values: [StoreValue]
            var keys: [ObjectKey]
        }
        struct GroupKey: Hashable {
            let entityID: Int
            let slots: [Int]
            let values: UniqueValueKey
        }
        // Most schemas have no constraints: then a save costs one pass over the entities.
        guard schema.entities.contains(where: { !$0.uniquenessConstraints.isEmpty }) else { return [] }
        var constraintsByEntity: [Int: [(entityID: Int, slots: [Int])]] = [:]
        var groups: [Group] = []
        var index: [GroupKey: Int] = [:]
        func constraints(of entityID: Int) -> [(entityID: Int, slots: [Int])] {
            if let known = constraintsByEntity[entityID] { return known }
            let found = schema.uniquenessConstraints(applyingTo: entityID)
            constraintsByEntity[entityID] = found
            return found
        }
        // An inserted row is made only when its entity has constraints to check.
        let inserted = try (0..<changes.inserted.count).compactMap { index in
            constraints(of: changes.inserted.key(at: index).entityID).isEmpty ? nil : try changes.inserted.row(at: index)
        }
        for row in inserted + changes.updated {
            for constraint in constraints(of: row.key.entityID) {
                guard constraint.slots.allSatisfy({ row.values.indices.contains($0) }) else { continue }
                let values = constraint.slots.map { row.values[$0] }
                guard let valueKey = UniqueValueKey(values) else { continue }
                let key = GroupKey(entityID: constraint.entityID, slots: constraint.slots, values: valueKey)
                if let position = index[key] {
                    groups[position].keys.append(row.key)
                } else {
                    index[key] = groups.count
                    groups.append(Group(entityID: constraint.entityID, slots: constraint.slots, values: values, keys: [row.key]))
                }
            }
        }
        guard !groups.isEmpty else { return [] }
        let rewritten = Set(changes.updated.map(\.key)).union(changes.deleted)
        var violations: [ConstraintViolation] = []
        for group in groups {
            let family = schema.entity(group.entityID).familyIDs
            let stored = try existing(group.entityID, group.slots, group.values).filter {
                family.contains($0.key.entityID) && !rewritten.contains($0.key)
            }
            guard group.keys.count > 1 || !stored.isEmpty else { continue }
            violations.append(
                ConstraintViolation(
                    entityID: group.entityID, slots: group.slots, values: group.values, keys: group.keys,
                    existing: stored.first))
        }
        return violations
    }
}

/// The values of a constraint as unique indexes compare them; nil when one is null (such rows
/// never conflict).
package struct UniqueValueKey: Hashable {
    private enum Component: Hashable {
        case integer(Int64)
        case double(Double)
        case bytes([UInt8])
        case other(StoreValue)
    }

    private let components: [Component]

    package init?(_ values: [StoreValue]) {
        var components: [Component] = []
        components.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .null: return nil
            case .bool(let flag): components.append(.integer(flag ? 1 : 0))
            case .integer(let number): components.append(.integer(number))
            case .double(let number):
                if let exact = Int64(exactly: number) {
                    components.append(.integer(exact))
                } else {
                    components.append(.double(number))
                }
            case .string(let text): components.append(.bytes(Array(text.utf8)))
            default: components.append(.other(value))
            }
        }
        self.components = components
    }
}
