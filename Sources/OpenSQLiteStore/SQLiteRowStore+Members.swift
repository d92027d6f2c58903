import OpenStoreCore

extension SQLiteRowStore {
    /// The members of a to-many relationship for many owners (see `SQLRowReader.members(of:slot:)`).
    package func members(of owners: [ObjectKey], slot: Int) throws -> [ObjectKey: [ObjectKey]] {
        try withLock { try SQLRowReader(session: file.connection, layout: file.layout).members(of: owners, slot: slot) }
    }

    /// See `RowStore.changeStamp(entityIDs:)`.
    package func changeStamp(entityIDs: Set<Int>) throws -> [Int64]? {
        try withLock { try SQLRowReader(session: file.connection, layout: file.layout).changeStamp(entityIDs: entityIDs) }
    }
}
