/// The new rows of a save, read one at a time by index: rows made beforehand, or rows that a
/// source makes as the store reads each.
///
/// ```swift
/// var changes = SaveChanges(inserted: [row])     // rows made beforehand
/// changes.inserted = InsertedRows(source)        // or made as they are read
/// for index in 0..<changes.inserted.count { try write(changes.inserted.row(at: index)) }
/// ```
///
/// A context's save gives its inserted objects as a source: each row is made from its object's
/// storage when the store binds it, and released once bound, rather than every row made first
/// and released after the write (100,000 rows held at once no longer fit a processor's caches,
/// and each was touched twice more: when bound and when released).
package struct InsertedRows: @unchecked Sendable {
    // @unchecked Sendable: a source's rows are read only while the save that gives them runs,
    // by the store it calls; the saver waits meanwhile (a store that writes on a thread of its
    // own hands the result back through a lock), and a source keeps no state across calls that
    // two threads could share.

    @usableFromInline let made: [RowSnapshot]
    @usableFromInline let source: (any InsertedRowSource)?

    /// Rows made beforehand.
    package init(_ rows: [RowSnapshot] = []) {
        made = rows
        source = nil
    }

    /// Rows made by `source`, each when it is read.
    package init(_ source: some InsertedRowSource) {
        made = []
        self.source = source
    }

    /// The number of rows.
    @inlinable package var count: Int { source?.count ?? made.count }

    /// Whether there are none.
    package var isEmpty: Bool { count == 0 }

    /// The key of the row at `index`, without making the row.
    @inlinable package func key(at index: Int) -> ObjectKey {
        guard let source else { return made[index].key }
        return source.key(at: index)
    }

    /// The row at `index` (made now when the rows come from a source).
    /// - Throws: The source's error: a value its attribute's type cannot hold, for instance.
    @inlinable package func row(at index: Int) throws -> RowSnapshot {
        guard let source else { return made[index] }
        return try source.row(at: index)
    }

    /// Every row, in order (made now when the rows come from a source).
    package func rows() throws -> [RowSnapshot] {
        guard let source else { return made }
        return try (0..<source.count).map { try source.row(at: $0) }
    }

    /// Every row's key, in order.
    package var keys: [ObjectKey] {
        guard let source else { return made.map(\.key) }
        return (0..<source.count).map { source.key(at: $0) }
    }
}

/// What makes the rows of `InsertedRows` as a store reads them: a context's inserted objects.
/// A class, so that reading a row copies no existential container.
package protocol InsertedRowSource: AnyObject {
    /// The number of rows.
    var count: Int { get }
    /// The key of the row at `index`.
    func key(at index: Int) -> ObjectKey
    /// The row at `index`, made now: its values as the store keeps them.
    func row(at index: Int) throws -> RowSnapshot
}
