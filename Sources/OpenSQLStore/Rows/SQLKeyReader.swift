import OpenStoreCore

/// Reads the object key of each row of a key fetch, whose columns are `Z_PK` and then `Z_ENT`
/// (or, for a table of one entity, that entity's number: `SQLRowDecoder.entityColumn`).
///
/// ```swift
/// var reader = SQLKeyReader(layout: layout, entity: plan.entityID)
/// while try statement.step() { if let key = reader.key(of: statement) { keys.append(key) } }
/// ```
///
/// For a table of one entity the second column is not read. Otherwise rows come mostly in runs
/// of one entity, and its number is looked up when it changes; a row whose number names no
/// entity of the schema gives nil. Public, with an inlinable `key(of:)`, for the reason
/// `SQLRowDecoder` is: each store's loop is specialized for its own rows.
public struct SQLKeyReader {
    @usableFromInline let layout: AppleSQLLayout
    /// The entity of every row, for a table of one entity.
    @usableFromInline let soleEntityID: Int?
    /// The last row's `Z_ENT`, and its schema entity.
    @usableFromInline var number = -1
    @usableFromInline var entityID: Int?

    /// A reader for the rows of a key fetch of `entity` (its table's rows).
    package init(layout: AppleSQLLayout, entity: Int) {
        self.layout = layout
        soleEntityID = layout.table(of: entity).soleEntityID
        entityID = soleEntityID
    }

    /// The key of the current row of `row`; nil for a number that names no entity.
    @inlinable
    public mutating func key<Row: SQLRow>(of row: Row) -> ObjectKey? {
        if soleEntityID == nil {
            let rowNumber = Int(row.int64(at: 1))
            if rowNumber != number {
                number = rowNumber
                entityID = layout.entityID(forNumber: rowNumber)
            }
        }
        guard let entityID else { return nil }
        return ObjectKey(entityID: entityID, primaryKey: row.int64(at: 0))
    }
}
