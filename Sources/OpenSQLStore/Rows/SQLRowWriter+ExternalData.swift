import Foundation
import OpenStoreCore

/// Writing attributes in Apple's external data layout (`AppleExternalData`), for a layout with
/// an external data folder (`AppleSQLLayout.externalData`, the SQLite store's): a value is
/// written as its column (`0x01` and the bytes, or a new file and `0x02`, its name, `0x00`), and
/// the files the rows pointed to before an update or a delete are noted, to be removed once the
/// transaction commits (`AppleExternalDataFolder`). Without a folder nothing changes: the
/// values are plain bytes.
extension SQLRowWriter {
    /// `rows` with their values of attributes in Apple's external data layout replaced by the
    /// columns that stand for them, writing a file for each large one. A value that `previous`
    /// (the row's columns before an update, by slot) already keeps in a file holding the same
    /// bytes keeps that column and its file.
    func encodingExternalData(_ rows: [RowSnapshot], previous: [ObjectKey: [Int: Data]] = [:]) throws -> [RowSnapshot] {
        guard layout.externalData != nil else { return rows }
        var slotsByEntity: [Int: [Int]] = [:]
        return try rows.map { row in
            let slots = slotsByEntity[row.key.entityID] ?? layout.externalDataSlots(of: row.key.entityID)
            slotsByEntity[row.key.entityID] = slots
            return try encodingExternalData(row, slots: slots, previous: previous[row.key])
        }
    }

    /// `row` with the values of its external data `slots` as their columns (see
    /// `encodingExternalData(_:previous:)`); `previous`: the columns the row holds now, by slot.
    func encodingExternalData(_ row: RowSnapshot, slots: [Int], previous: [Int: Data]? = nil) throws -> RowSnapshot {
        guard let folder = layout.externalData, !slots.isEmpty else { return row }
        var result = row
        for slot in slots where row.values.indices.contains(slot) {
            guard case .data(let value) = row.values[slot] else { continue }
            if let old = previous?[slot], folder.column(old, holds: value) {
                result.values[slot] = .data(old)
                continue
            }
            let entity = layout.schema.entity(row.key.entityID)
            result.values[slot] = .data(
                try folder.column(for: value, entity: entity.name, attribute: entity.properties[slot].name))
        }
        return result
    }

    /// The columns of attributes in Apple's external data layout that the rows of `keys` hold
    /// now, by key and slot (NULLs left out): one query per entity, the keys bound as one JSON
    /// array. Empty without an external data folder or such attributes.
    func externalDataColumns(of keys: [ObjectKey]) throws -> [ObjectKey: [Int: Data]] {
        guard layout.externalData != nil else { return [:] }
        var keysByEntity: [Int: [Int64]] = [:]
        for key in keys where layout.entities.indices.contains(key.entityID - 1) {
            keysByEntity[key.entityID, default: []].append(key.primaryKey)
        }
        var result: [ObjectKey: [Int: Data]] = [:]
        for (entityID, primaryKeys) in keysByEntity.sorted(by: { $0.key < $1.key }) {
            var columns: [(slot: Int, column: String)] = []
            for slot in layout.externalDataSlots(of: entityID) {
                if case .attribute(let column, _) = layout.entities[entityID - 1].slots[slot] { columns.append((slot, column)) }
            }
            guard !columns.isEmpty else { continue }
            let table = layout.table(of: entityID).name
            let list = "[" + primaryKeys.map(String.init).joined(separator: ",") + "]"
            let sql =
                "SELECT Z_PK, \(columns.map(\.column).joined(separator: ", ")) FROM \(table) WHERE "
                + session.dialect.inKeyList("Z_PK", "?")
            try session.query(sql, [.string(list)]) { row in
                var values: [Int: Data] = [:]
                for (offset, entry) in columns.enumerated() {
                    if let data = row.data(at: Int32(offset + 1)) { values[entry.slot] = data }
                }
                result[ObjectKey(entityID: entityID, primaryKey: row.int64(at: 0))] = values
            }
        }
        return result
    }

    /// Notes the files that `previous` points to and that `rows` (the same rows, as written
    /// now; none for deleted rows) no longer point to: removed once the transaction commits.
    func noteReplacedExternalData(_ previous: [ObjectKey: [Int: Data]], by rows: [RowSnapshot] = []) {
        guard let folder = layout.externalData, !previous.isEmpty else { return }
        var written: [ObjectKey: RowSnapshot] = [:]
        for row in rows { written[row.key] = row }
        for (key, columns) in previous {
            for (slot, column) in columns {
                if let row = written[key], row.values.indices.contains(slot), case .data(let now) = row.values[slot],
                    now == column
                {
                    continue
                }
                folder.noteUnreferenced(column: column)
            }
        }
    }
}
