import OpenStoreCore

/// The rows one insert statement writes, as `SQLRowWriter` hands them to its session
/// (`SQLSession.runInsert(_:_:)`): for each row, in placeholder order, its primary key, its
/// entity's `Z_ENT`, its version, then a value per column. A session binds each row as it reads
/// it (`row(at:)`), with no array of the values made first (a row made from its object is bound
/// while its values are still in the processor's cache, and released at once).
package struct SQLInsertRows {
    /// The rows the writer inserts; the statement writes those at `positions`, in that order.
    package let rows: InsertedRows
    /// Indexes in `rows`.
    package let positions: ArraySlice<Int>
    /// `Z_ENT` of the rows' entity.
    package let entityNumber: Int64
    /// What each placeholder after a row's version binds.
    package let columns: [SQLColumnBinding]
    /// The layout, for the entity numbers of to-one destinations.
    let layout: AppleSQLLayout
    /// The number of values a row of the entity has (one per slot).
    let valueCount: Int
    /// The error for a row with another number of values.
    let wrongValueCount: (RowSnapshot) -> Error
    /// The writer's further work on each row as it is read, for an entity that needs it (nil
    /// for most): the check of slots without a column, and values of attributes in Apple's
    /// external data layout written as their columns.
    let finish: ((RowSnapshot) throws -> RowSnapshot)?

    /// The statement's number of placeholders.
    package var placeholderCount: Int { positions.count * (3 + columns.count) }

    /// The row at `position` (one of `positions`), as the statement binds it.
    /// - Throws: `NSPersistentStoreOperationError` for a row with the wrong number of values
    ///   or a value the store has no place for; the rows' own error (`InsertedRows.row(at:)`).
    package func row(at position: Int) throws -> RowSnapshot {
        let row = try rows.row(at: position)
        guard row.values.count == valueCount else { throw wrongValueCount(row) }
        guard let finish else { return row }
        return try finish(row)
    }

    /// What `column` binds for `row`: a value as the row holds it, a to-one's destination as its
    /// primary key or its entity number.
    @inline(__always)
    package func value(_ column: SQLColumnBinding, of row: RowSnapshot) -> StoreValue {
        column.value(of: row, layout: layout)
    }

    /// Every value, in placeholder order (for a session that sends them in one array).
    package func values() throws -> [StoreValue] {
        var values: [StoreValue] = []
        values.reserveCapacity(placeholderCount)
        for position in positions {
            let row = try row(at: position)
            values.append(.integer(row.key.primaryKey))
            values.append(.integer(entityNumber))
            values.append(.integer(row.version))
            for column in columns { values.append(value(column, of: row)) }
        }
        return values
    }
}

/// What one column placeholder of an insert or update binds for a row.
package enum SQLColumnBinding {
    /// The slot's value.
    case value(slot: Int)
    /// A to-one's destination primary key.
    case destinationKey(slot: Int)
    /// A to-one's destination entity number (the `Z<n>_` column of a hierarchy).
    case destinationEntity(slot: Int)

    /// The value bound for `row` (entity numbers from `layout`).
    @inline(__always)
    func value(of row: RowSnapshot, layout: AppleSQLLayout) -> StoreValue {
        switch self {
        case .value(let slot):
            return row.values[slot]
        case .destinationKey(let slot):
            guard case .object(let key) = row.values[slot] else { return .null }
            return .integer(key.primaryKey)
        case .destinationEntity(let slot):
            guard case .object(let key) = row.values[slot] else { return .null }
            return .integer(Int64(layout.entityNumber(of: key.entityID)))
        }
    }
}
