/// Rows of one fetch kept together: their values in one allocation, row after row, so that a
/// fetch of many rows makes one allocation per block rather than one array per row, and frees
/// them the same way. Objects made from the rows read their values in place (see
/// `NSManagedObject.fetchedRow`); a block lives while one of them still reads from it, so stores
/// keep blocks small (at most `RowBlock.capacity` rows).
///
/// ```swift
/// let block = RowBlock(width: 2, rows: 32)
/// block.nextRow.initialize(to: .string("Ada"))
/// (block.nextRow + 1).initialize(to: .integer(36))
/// block.endRow(key: key, version: 1)
/// block.values(ofRow: 0)   // [.string("Ada"), .integer(36)]
/// ```
///
/// Public only for `SQLRowDecoder`'s `decode` methods (see there): no product holds this module.
public final class RowBlock {
    /// The most rows a store puts in one block.
    package static let capacity = 256

    /// The number of values per row (the entity's slots).
    package let width: Int
    /// The number of rows the block has room for.
    package let rowCapacity: Int
    /// The rows' values, row after row: `count` rows of `width` values. A `let`, so that other
    /// modules read it without an exclusivity check.
    package let values: UnsafeMutablePointer<StoreValue>
    // Filled by one thread, then only read: no dynamic exclusivity checks.
    /// The rows' keys and versions, by row.
    @exclusivity(unchecked) package private(set) var keys: [ObjectKey] = []
    @exclusivity(unchecked) package private(set) var versions: [Int64] = []

    /// An empty block for `rows` rows of `width` values.
    package init(width: Int, rows: Int) {
        self.width = max(width, 0)
        rowCapacity = max(rows, 1)
        values = .allocate(capacity: max(self.width * rowCapacity, 1))
        keys.reserveCapacity(rowCapacity)
        versions.reserveCapacity(rowCapacity)
    }

    deinit {
        values.deinitialize(count: keys.count * width)
        values.deallocate()
    }

    /// The number of rows.
    package var count: Int { keys.count }

    /// Whether the block has no room for another row.
    package var isFull: Bool { keys.count >= rowCapacity }

    /// Where the next row's values go: the caller initializes all `width` of them, then calls
    /// `endRow(key:version:)`. Only while the block is not full.
    @usableFromInline package var nextRow: UnsafeMutablePointer<StoreValue> { values + keys.count * width }

    /// Ends the row whose `width` values were just initialized at `nextRow`.
    @usableFromInline package func endRow(key: ObjectKey, version: Int64) {
        keys.append(key)
        versions.append(version)
    }

    /// The values of the row at `row`, as an array of their own.
    package func values(ofRow row: Int) -> [StoreValue] {
        Array(UnsafeBufferPointer(start: values + row * width, count: width))
    }

    /// The row at `row` as a snapshot.
    package func snapshot(ofRow row: Int) -> RowSnapshot {
        RowSnapshot(key: keys[row], version: versions[row], values: values(ofRow: row))
    }
}
