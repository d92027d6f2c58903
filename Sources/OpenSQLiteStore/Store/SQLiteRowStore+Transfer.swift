import OpenSQLStore
import OpenStoreCore

extension SQLiteRowStore: SQLRowStore {
    package func exportContents() throws -> StoreContents {
        try withLock { try SQLStoreTransfer.export(session: file.connection, layout: file.layout) }
    }

    package func importContents(_ contents: StoreContents, storeUUID: String?, progress: (Int) -> Void) throws {
        try refuseIfReadOnly("copy a store into it")
        try withLock {
            let connection = file.connection
            var metadata = file.metadata
            if let storeUUID { metadata.storeUUID = storeUUID }
            try file.transaction {
                try SQLStoreTransfer.import(contents, session: connection, layout: file.layout, progress: progress)
                try metadata.write(to: connection)
            }
            file.metadataWritten(metadata)
        }
    }
}
