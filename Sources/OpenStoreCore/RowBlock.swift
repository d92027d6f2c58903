/// Rows of one fetch kept together: their values in one array, row after row, so that a fetch
/// of many rows makes one allocation per block rather than one array per row, and frees them
/// the same way. Objects made from the rows read their values in place (see
/// `NSManagedObject.fetchedRow`); a block lives while one of them still reads from it, so stores
/// keep blocks small (`RowBlock.capacity` rows).
///
/// ```swift
/// let block = RowBlock(width: 3)
/// block.append(key: key, version: 1, values: [.string("Ada"), .integer(36), .null])
/// block[0, 1]   // .integer(36)
/// ```
package final class RowBlock {
    /// The rows a store puts in one block.
    package static let capacity = 256

    /// The number of values per row (the entity's slots).
    package let width: Int
    // Filled by one thread, then only read: no dynamic exclusivity checks.

    /// The rows' values, row after row.
    @exclusivity(unchecked) package private(set) var values: [StoreValue] = []
    /// The rows' keys and versions, by row.
    @exclusivity(unchecked) package private(set) var keys: [ObjectKey] = []
    @exclusivity(unchecked) package private(set) var versions: [Int64] = []

    package init(width: Int) {
        self.width = width
        values.reserveCapacity(width * Self.capacity)
        keys.reserveCapacity(Self.capacity)
        versions.reserveCapacity(Self.capacity)
    }

    /// The number of rows.
    package var count: Int { keys.count }

    /// Whether the block holds `capacity` rows.
    package var isFull: Bool { keys.count >= Self.capacity }

    /// The value at `slot` of the row at `row` (read through this, not `values`, from another
    /// module: its accesses to `values` are not checked for exclusivity).
    package subscript(row: Int, slot: Int) -> StoreValue {
        values[row &* width &+ slot]
    }

    /// Adds a row whose `width` values `append` appends to `values`.
    package func appendRow(key: ObjectKey, version: Int64, _ append: (inout [StoreValue]) -> Void) {
        append(&values)
        keys.append(key)
        versions.append(version)
    }

    /// Adds a row.
    package func append(key: ObjectKey, version: Int64, values row: [StoreValue]) {
        appendRow(key: key, version: version) { $0.append(contentsOf: row) }
    }

    /// The values of the row at `row`, as an array of their own.
    package func values(ofRow row: Int) -> [StoreValue] {
        Array(values[row * width..<(row + 1) * width])
    }

    /// The row at `row` as a snapshot.
    package func snapshot(ofRow row: Int) -> RowSnapshot {
        RowSnapshot(key: keys[row], version: versions[row], values: values(ofRow: row))
    }
}
