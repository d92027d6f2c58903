import OpenPredicate
import OpenStoreCore

/// The rows of one inheritance hierarchy (Apple's one table per root entity), in insertion
/// order.
///
/// A value type, so that a fetch can take the tables as they are under the store's lock and
/// read them after releasing it: the copy is free until the store next changes the table.
/// Deleted rows leave a hole, so positions stay put while a save runs; holes are squeezed out
/// once they outnumber the rows.
struct RowTable {
    /// Rows in insertion order; nil where a row was deleted.
    private(set) var rows: ContiguousArray<RowSnapshot?> = []
    /// Positions in `rows`, by primary key.
    private(set) var positions: [Int64: Int] = [:]
    private var holes = 0
    /// The highest primary key handed out or used (Apple's `Z_PRIMARYKEY.Z_MAX`).
    var maxPrimaryKey: Int64 = 0

    /// The number of rows.
    var count: Int { positions.count }

    /// The row with this primary key, whatever its entity.
    func row(primaryKey: Int64) -> RowSnapshot? {
        positions[primaryKey].flatMap { rows[$0] }
    }

    /// Appends a row whose primary key is not in the table yet.
    mutating func insert(_ row: RowSnapshot) {
        positions[row.key.primaryKey] = rows.count
        rows.append(row)
        maxPrimaryKey = max(maxPrimaryKey, row.key.primaryKey)
    }

    /// Replaces the row with the same primary key, keeping its place in the order.
    mutating func replace(_ row: RowSnapshot) {
        guard let position = positions[row.key.primaryKey] else { return }
        rows[position] = row
    }

    /// Removes the row with this primary key.
    mutating func remove(primaryKey: Int64) {
        guard let position = positions.removeValue(forKey: primaryKey) else { return }
        rows[position] = nil
        holes += 1
    }

    /// Squeezes out the holes once they outnumber the rows (and there are enough to matter).
    mutating func compactIfSparse() {
        guard holes > 32, holes > positions.count else { return }
        rows.removeAll { $0 == nil }
        holes = 0
        positions.removeAll(keepingCapacity: true)
        for (position, row) in rows.enumerated() {
            if let row { positions[row.key.primaryKey] = position }
        }
    }
}
