import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// A to-one key in a store file that names no row of its destination, or a row of another
/// entity: what `SQLiteStoreFile.danglingToOneKeys()` finds. Reading such a relationship's
/// destination stops the process in Apple's Core Data (`NSObjectInaccessibleException` when
/// the fault fires) and here; a reader that must not stop checks first, or asks
/// `NSManagedObjectContext.existingObject(with:)`, which throws.
package struct DanglingToOneKey: Equatable, Sendable, CustomStringConvertible {
    /// The entity of the row holding the key, and the row's `Z_PK`.
    package var entity: String
    package var primaryKey: Int64
    /// The to-one relationship and its destination entity.
    package var relationship: String
    package var destination: String
    /// The key (`Z_PK` of the destination row it should name).
    package var key: Int64
    /// What is wrong with it.
    package var problem: String

    /// `Book 3 .author → Author 999: no such row`.
    package var description: String { "\(entity) \(primaryKey) .\(relationship) → \(destination) \(key): \(problem)" }
}

extension SQLiteStoreFile {
    /// Every to-one key that names no row of its destination's table, a row whose entity is not
    /// the destination or one of its sub-entities, or (where the file keeps the destination's
    /// entity number beside the key) a row of another entity than that number says. Reads each
    /// table once per to-one relationship; never changes the file.
    package func danglingToOneKeys() throws -> [DanglingToOneKey] {
        var found: [DanglingToOneKey] = []
        for entity in layout.schema.entities {
            let entityLayout = layout.entities[entity.id - 1]
            let table = layout.tables[entityLayout.table].name
            for (slot, property) in entity.properties.enumerated() {
                guard entityLayout.slots.indices.contains(slot),
                    case .toOne(let column, let entityColumn, let destinationID) = entityLayout.slots[slot]
                else { continue }
                let destination = layout.schema.entity(destinationID)
                let destinationTable = layout.tables[layout.entities[destinationID - 1].table].name
                let family = Set(destination.familyIDs.map { layout.entityNumber(of: $0) })
                let statement = try connection.statement(
                    "SELECT s.Z_PK, s.\(column), \(entityColumn.map { "s.\($0)" } ?? "NULL"), d.Z_ENT FROM \(table) s "
                        + "LEFT JOIN \(destinationTable) d ON d.Z_PK = s.\(column) WHERE s.Z_ENT = ? AND s.\(column) IS NOT NULL")
                defer { statement.reset() }
                try statement.bind([.integer(Int64(layout.entityNumber(of: entity.id)))])
                while try statement.step() {
                    let key = statement.int64(at: 1)
                    var problem: String?
                    if statement.isNull(at: 3) {
                        problem = "no such row in \(destinationTable)"
                    } else {
                        let actual = Int(statement.int64(at: 3))
                        let actualName =
                            layout.entityID(forNumber: actual).map { layout.schema.entity($0).name } ?? "entity number \(actual)"
                        if !family.contains(actual) {
                            problem = "the row is a \(actualName), not a \(destination.name)"
                        } else if !statement.isNull(at: 2), Int(statement.int64(at: 2)) != actual {
                            problem = "the key's entity number is \(statement.int64(at: 2)) but the row is a \(actualName)"
                        }
                    }
                    guard let problem else { continue }
                    found.append(
                        DanglingToOneKey(
                            entity: entity.name, primaryKey: statement.int64(at: 0), relationship: property.name,
                            destination: destination.name, key: key, problem: problem))
                }
            }
        }
        return found
    }

    /// SQLite's `PRAGMA integrity_check`: `["ok"]` for a sound file, else its findings.
    package func integrityCheck() throws -> [String] {
        let statement = try connection.statement("PRAGMA integrity_check")
        defer { statement.reset() }
        var lines: [String] = []
        while try statement.step() { lines.append(statement.string(at: 0) ?? "") }
        return lines
    }
}

extension SQLiteRowStore {
    /// The file's `integrityCheck()` and `danglingToOneKeys()`, under the store's lock.
    package func checkFile() throws -> (integrity: [String], danglingKeys: [DanglingToOneKey]) {
        try withLock { (try file.integrityCheck(), try file.danglingToOneKeys()) }
    }
}
