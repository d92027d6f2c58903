import OpenPredicate
import OpenStoreCore

/// Checks a whole save against the store before any of it is applied, so that a save is all
/// or nothing: every key of a known entity and in one list only, inserts of concrete entities
/// with unused primary keys, updates and deletes of existing rows, one value per slot, each of
/// a case the slot can hold. Updates and deletes with an expected version are checked by
/// `versionConflicts(in:)` instead: a missing row is then a conflict, not an error.
struct SaveValidator {
    let layouts: [EntityLayout]
    let tables: [RowTable]

    /// - Parameter inserted: The save's inserted rows, made.
    func validate(_ changes: SaveChanges, inserted: [RowSnapshot]) throws {
        let (updated, deleted) = (changes.updated, changes.deleted)
        // Primary keys are unique per hierarchy, so a save names each (table, key) once.
        var seen = Set<TableKey>()
        func entity(of key: ObjectKey) throws -> EntityLayout {
            guard layouts.indices.contains(key.entityID - 1) else {
                throw InMemoryStoreError.save("No entity numbered \(key.entityID) for object \(key)", key: key)
            }
            let layout = layouts[key.entityID - 1]
            guard seen.insert(TableKey(table: layout.table, primaryKey: key.primaryKey)).inserted else {
                throw InMemoryStoreError.save(
                    "Primary key \(key.primaryKey) of \(key) (\(layout.name)) appears more than once in one save",
                    key: key, entity: layout.name)
            }
            return layout
        }
        func existing(_ key: ObjectKey, _ layout: EntityLayout) -> RowSnapshot? {
            tables[layout.table].row(primaryKey: key.primaryKey)
        }
        for row in inserted {
            let layout = try entity(of: row.key)
            if layout.isAbstract {
                throw InMemoryStoreError.save(
                    "Can't insert \(row.key): \(layout.name) is abstract", key: row.key, entity: layout.name)
            }
            if row.key.primaryKey <= 0 {
                throw InMemoryStoreError.save(
                    "Can't insert \(row.key) (\(layout.name)): primary keys start at 1", key: row.key, entity: layout.name)
            }
            if let other = existing(row.key, layout) {
                throw InMemoryStoreError.save(
                    "Can't insert \(row.key) (\(layout.name)): primary key \(row.key.primaryKey) is already used by \(other.key)",
                    key: row.key, entity: layout.name)
            }
            try check(row, layout)
        }
        for row in updated {
            let layout = try entity(of: row.key)
            guard changes.expectedVersions[row.key] != nil || existing(row.key, layout)?.key == row.key else {
                throw InMemoryStoreError.save(
                    "Can't update \(row.key) (\(layout.name)): no such row", key: row.key, entity: layout.name)
            }
            try check(row, layout)
        }
        for key in deleted {
            let layout = try entity(of: key)
            guard changes.expectedVersions[key] != nil || existing(key, layout)?.key == key else {
                throw InMemoryStoreError.save("Can't delete \(key) (\(layout.name)): no such row", key: key, entity: layout.name)
            }
        }
    }

    /// Updated and deleted rows whose version is not the expected one, or that are gone.
    func versionConflicts(in changes: SaveChanges) -> [VersionConflict] {
        var conflicts: [VersionConflict] = []
        for key in changes.updated.map(\.key) + changes.deleted {
            guard let expected = changes.expectedVersions[key], layouts.indices.contains(key.entityID - 1) else { continue }
            let current = tables[layouts[key.entityID - 1].table].row(primaryKey: key.primaryKey).flatMap {
                $0.key == key ? $0 : nil
            }
            if current?.version != expected {
                conflicts.append(VersionConflict(key: key, expectedVersion: expected, current: current))
            }
        }
        return conflicts
    }

    /// The rows of an entity and its sub-entities by their values at `slots` (as unique
    /// indexes compare them; rows with a null there are left out): one pass over the table.
    func uniqueIndex(of entityID: Int, slots: [Int]) -> [UniqueValueKey: [RowSnapshot]] {
        guard layouts.indices.contains(entityID - 1) else { return [:] }
        let layout = layouts[entityID - 1]
        var index: [UniqueValueKey: [RowSnapshot]] = [:]
        for case let row? in tables[layout.table].rows where layout.familyIDs.contains(row.key.entityID) {
            guard slots.allSatisfy({ row.values.indices.contains($0) }),
                let key = UniqueValueKey(slots.map { row.values[$0] })
            else { continue }
            index[key, default: []].append(row)
        }
        return index
    }

    /// A primary key within its table.
    private struct TableKey: Hashable {
        let table: Int
        let primaryKey: Int64
    }

    /// Checks a row's values against its entity: one per slot, each of a case the slot can hold.
    private func check(_ row: RowSnapshot, _ layout: EntityLayout) throws {
        guard row.values.count == layout.slots.count else {
            throw InMemoryStoreError.save(
                "Row \(row.key) (\(layout.name)) has \(row.values.count) values; \(layout.name) has \(layout.slots.count) properties",
                key: row.key, entity: layout.name)
        }
        for (slot, value) in row.values.enumerated() where !holds(layout.slots[slot], value) {
            throw InMemoryStoreError.save(
                "Row \(row.key) (\(layout.name)) has \(value) for \(layout.propertyNames[slot]), which can't hold it",
                key: row.key, entity: layout.name)
        }
    }

    /// Whether a slot can hold a value: `.null` always; a number in any numeric slot (the views
    /// convert it to the attribute's type); a relationship's keys only of its destination
    /// entity or an entity below it.
    private func holds(_ slot: EntityLayout.Slot, _ value: StoreValue) -> Bool {
        switch (slot, value) {
        case (_, .null):
            return true
        case (.attribute(let kind), _):
            return Self.attribute(kind, holds: value)
        case (.toOne(let destination), .object(let key)):
            return family(of: destination).contains(key.entityID)
        case (.toMany(let destination), .objects(let keys)):
            let family = family(of: destination)
            return keys.allSatisfy { family.contains($0.entityID) }
        default:
            return false
        }
    }

    /// A destination entity and the entities below it (none for a number the schema lacks).
    private func family(of entityID: Int) -> Set<Int> {
        layouts.indices.contains(entityID - 1) ? layouts[entityID - 1].familyIDs : []
    }

    private static func attribute(_ kind: AttributeKind, holds value: StoreValue) -> Bool {
        switch (kind, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer),
            (.integer16, .bool), (.integer32, .bool), (.integer64, .bool),
            (.boolean, .bool), (.boolean, .integer),
            (.decimal, .decimal), (.decimal, .integer), (.decimal, .double),
            (.double, .double), (.double, .integer), (.double, .decimal),
            (.float, .double), (.float, .integer), (.float, .decimal),
            (.string, .string), (.date, .date), (.binary, .data), (.transformable, .data),
            (.uuid, .uuid), (.uri, .url), (.objectID, .object):
            return true
        case (.undefined, .objects):
            return false
        case (.undefined, _):
            return true
        default:
            return false
        }
    }
}
