import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// An open Core Data SQLite store file: its connection, metadata, `Z_PRIMARYKEY` rows and the
/// layout of the schema in it. `SQLiteRowStore` puts a `RowStore` on top of it.
///
/// ```swift
/// let store = try SQLiteStoreFile.open(at: url, schema: schema, mode: .readOnly,
///                                      modelVersionHashes: model.entityVersionHashesByName)
/// let rows = try store.rows(entityIDs: [bookID])
/// ```
///
/// Opening an existing file checks, in order: that it is a SQLite database
/// (`NSPersistentStoreOpenError`), that it has Core Data's metadata
/// (`NSPersistentStoreInvalidTypeError`), that the version hashes match the model's when given
/// (`NSPersistentStoreIncompatibleVersionHashError`, naming the entities), and that every entity
/// has a number in `Z_PRIMARYKEY` and every table and column of the layout exists
/// (`NSPersistentStoreIncompatibleSchemaError`). Entity numbers come from `Z_PRIMARYKEY` by name.
package final class SQLiteStoreFile {
    package let connection: SQLiteConnection
    package private(set) var metadata: AppleSQLMetadata
    package let layout: AppleSQLLayout
    /// The columns the file's own triggers keep (`TABLE.COLUMN`): derived attributes in a store
    /// Apple's Core Data created, which saves must not write over (see `SQLiteAppleFunctions`).
    package let triggerKeptColumns: Set<String>
    /// The insert and update statements of the saves, made once per entity.
    package let writeStatements = SQLWriteStatements()

    private init(
        connection: SQLiteConnection, metadata: AppleSQLMetadata, layout: AppleSQLLayout, triggerKeptColumns: Set<String> = []
    ) {
        self.connection = connection
        self.metadata = metadata
        var layout = layout
        layout.externalData = Self.externalDataFolder(of: connection, schema: layout.schema)
        self.layout = layout
        self.triggerKeptColumns = triggerKeptColumns
    }

    /// The folder of the file's values kept outside their rows (`AppleExternalData`), when the
    /// schema has attributes that allow external storage; nil otherwise (nothing to read or write
    /// there). An in-memory database keeps every such value in its row.
    private static func externalDataFolder(of connection: SQLiteConnection, schema: StoreSchema) -> AppleExternalDataFolder? {
        let flagged = schema.entities.contains { entity in
            entity.properties.contains { property in
                guard property.allowsExternalBinaryDataStorage, case .attribute(let kind) = property.kind else { return false }
                return kind == .binary || kind == .transformable
            }
        }
        guard flagged else { return nil }
        return AppleExternalDataFolder(storeURL: connection.url, inMemory: connection.isInMemoryDatabase)
    }

    /// The derived-attribute columns that one of the file's triggers updates
    /// (`UPDATE <TABLE> SET <COLUMN> = …`).
    private static func triggerKeptColumns(layout: AppleSQLLayout, connection: SQLiteConnection) throws -> Set<String> {
        let statement = try connection.statement("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL")
        defer { statement.reset() }
        var triggers: [String] = []
        while try statement.step() { triggers.append(statement.string(at: 0) ?? "") }
        guard !triggers.isEmpty else { return [] }
        var kept: Set<String> = []
        for entity in layout.schema.entities {
            let table = layout.table(of: entity.id).name
            for (slot, property) in entity.properties.enumerated() where property.isDerived {
                guard case .attribute(let column, _) = layout.entities[entity.id - 1].slots[slot] else { continue }
                if triggers.contains(where: { $0.contains("UPDATE \(table) SET \(column) =") }) {
                    kept.insert("\(table).\(column)")
                }
            }
        }
        return kept
    }

    /// Opens an existing store.
    ///
    /// - Parameters:
    ///   - url: the `.sqlite` file (its `-wal` and `-shm` beside it).
    ///   - schema: the lowered model.
    ///   - mode: `.readOnly` or `.readWrite` (`.create` also creates a missing file: use
    ///     `create(at:schema:versionHashes:versionIdentifiers:)` for that).
    ///   - modelVersionHashes: the model's entity version hashes; nil skips the check.
    package static func open(
        at url: URL, schema: StoreSchema, mode: SQLiteConnection.Mode = .readWrite, modelVersionHashes: [String: Data]? = nil
    ) throws -> SQLiteStoreFile {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SQLiteStoreError.open("There is no store file at \(path)", path: path)
        }
        let connection = try SQLiteConnection(url: url, mode: mode == .create ? .readWrite : mode)
        return try open(connection: connection, schema: schema, modelVersionHashes: modelVersionHashes)
    }

    /// Opens the store in an open connection (the checks of `open(at:schema:mode:modelVersionHashes:)`).
    static func open(connection: SQLiteConnection, schema: StoreSchema, modelVersionHashes: [String: Data]?) throws
        -> SQLiteStoreFile
    {
        let path = connection.url.path
        let metadata = try AppleSQLMetadata.read(from: connection)
        if let type = metadata.storeTypeName, type != AppleSQLMetadata.storeType {
            throw SQLStoreError.invalidType("The store \(path) is of type \(type), not SQLite", path: path)
        }
        if let modelVersionHashes {
            try AppleSQLCompatibility.check(store: metadata.versionHashes, model: modelVersionHashes, path: path)
        }
        let numbers = Dictionary(try AppleSQLPrimaryKeys.read(from: connection).map { ($0.name, $0.entityNumber) }) { first, _ in
            first
        }
        let layout: AppleSQLLayout
        do {
            layout = try AppleSQLLayout(schema: schema, entityNumbers: numbers)
        } catch let error as NSError {
            throw SQLStoreError.incompatibleSchema("\(error.localizedDescription) in \(path)", path: path)
        }
        let missing = try layout.missingColumns(in: connection)
        guard missing.isEmpty else {
            throw SQLStoreError.incompatibleSchema(
                "The store \(path) lacks tables or columns the model needs: \(missing.joined(separator: ", "))", path: path)
        }
        return SQLiteStoreFile(
            connection: connection, metadata: metadata, layout: layout,
            triggerKeptColumns: try triggerKeptColumns(layout: layout, connection: connection))
    }

    /// The `Z_PRIMARYKEY` rows as they are now.
    package func primaryKeys() throws -> [AppleSQLPrimaryKeyRow] { try AppleSQLPrimaryKeys.read(from: connection) }

    /// Every row of the entities (schema numbers).
    package func rows(entityIDs: Set<Int>) throws -> [RowSnapshot] {
        try SQLRowReader(session: connection, layout: layout).rows(entityIDs: entityIDs)
    }

    /// Inserts rows in one transaction.
    package func insert(_ rows: [RowSnapshot]) throws {
        try transaction { try SQLRowWriter(session: connection, layout: layout).insert(rows) }
    }

    /// Runs `body` in a transaction of the connection (`SQLiteConnection.transaction`), and
    /// keeps the external data folder in step with it: after its `COMMIT` the files it stopped
    /// pointing to are removed, after a rollback the files it wrote
    /// (`AppleExternalDataFolder.transaction(_:)`).
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        guard let folder = layout.externalData else { return try connection.transaction(body) }
        return try folder.transaction { try connection.transaction(body) }
    }

    /// Replaces the metadata (in one transaction).
    package func setMetadata(_ metadata: AppleSQLMetadata) throws {
        try connection.transaction { try metadata.write(to: connection) }
        self.metadata = metadata
    }

    /// Takes `metadata` as the file's after the caller wrote it (in a transaction of its own).
    func metadataWritten(_ metadata: AppleSQLMetadata) {
        self.metadata = metadata
    }
}
