import OpenStoreCore

extension SQLiteRowStore {
    /// The members of a to-many relationship for many owners (see `SQLRowReader.members(of:slot:)`).
    package func members(of owners: [ObjectKey], slot: Int) throws -> [ObjectKey: [ObjectKey]] {
        try withLock { try SQLRowReader(session: file.connection, layout: file.layout).members(of: owners, slot: slot) }
    }
}
