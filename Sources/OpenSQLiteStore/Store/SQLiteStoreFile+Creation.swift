import CSQLite
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creating a store so that it either does not exist or opens, and the checks made before a
/// file is opened at all.
///
/// A new store is its schema, `Z_PRIMARYKEY` rows and `Z_METADATA` written in one `BEGIN
/// IMMEDIATE` transaction into an empty database. SQLite creates the file (and, in WAL mode,
/// writes its first page) before that transaction, so a process killed, or a disk that fills,
/// between the two leaves an SQLite database with nothing in it; a later read-write open finds
/// it empty (`isEmptyDatabase(_:)`: no schema object at all, no `user_version`, no
/// `application_id`; a zero-length file is one too) and creates the store in it, in the same
/// transaction that checked it was empty, so two processes creating one store at once end with
/// one store. A file that holds anything of its own (a table, an index, a view, a user version)
/// is never touched: it stays "not a Core Data store". SQLite's own recovery has run by then (an
/// interrupted transaction's `-journal` rolled back, its `-wal` frames ignored), so side files
/// of a half-created file need no handling of their own.
///
/// The statements are first run on an in-memory database, so that a statement SQLite refuses
/// because of the model fails before any file exists.
extension SQLiteStoreFile {
    /// Opens the store at `url`, creating it when there is no file yet or the file is an empty
    /// database (a creation that was interrupted), unless `readOnly`.
    ///
    /// - Parameters:
    ///   - url: the `.sqlite` file; its folder must exist when the store is created.
    ///   - schema: the lowered model.
    ///   - readOnly: opens read-only; a missing or empty file is then an error.
    ///   - versionHashes: the model's entity version hashes, written into a new store and
    ///     compared with an existing one's.
    ///   - versionIdentifiers: the model's version identifiers, written into a new store.
    ///   - pragmas: SQLite pragmas (name → value) set on the connection (`NSSQLitePragmasOption`);
    ///     `journal_mode` also chooses a new store's journal mode. **Default:** none (WAL).
    ///   - checksVersionHashes: false opens an existing store whatever its version hashes (its
    ///     tables and columns are still checked). **Default:** true.
    /// - Returns: the store, and whether it was created by this call.
    package static func openOrCreate(
        at url: URL, schema: StoreSchema, readOnly: Bool, versionHashes: [String: Data], versionIdentifiers: [String] = [""],
        pragmas: [(name: String, value: String)] = [], checksVersionHashes: Bool = true
    ) throws -> (file: SQLiteStoreFile, created: Bool) {
        let path = url.path
        let exists = FileManager.default.fileExists(atPath: path)
        if readOnly || exists {
            let connection = try SQLiteConnection(url: url, mode: readOnly ? .readOnly : .readWrite)
            try refuseReadOnlyFile(connection, readOnly: readOnly)
            var created = false
            if try isEmptyDatabase(connection) {
                guard !readOnly else {
                    throw SQLiteStoreError.open(
                        "The store file \(path) is an empty SQLite database (the creation of the store was interrupted); "
                            + "open it without NSReadOnlyPersistentStoreOption once to create the store in it",
                        path: path)
                }
                created = try createSchema(
                    in: connection, schema: schema, versionHashes: versionHashes, versionIdentifiers: versionIdentifiers,
                    journalMode: journalMode(in: pragmas))
            }
            try apply(pragmas, to: connection, readOnly: readOnly)
            return (
                try open(connection: connection, schema: schema, modelVersionHashes: checksVersionHashes ? versionHashes : nil),
                created
            )
        }
        let file = try create(
            at: url, schema: schema, versionHashes: versionHashes, versionIdentifiers: versionIdentifiers, pragmas: pragmas)
        return (file, true)
    }

    /// Creates a new store file in Apple's layout (WAL journal mode unless `pragmas` ask for
    /// another, incremental auto-vacuum as `_NSAutoVacuumLevel` 2 says, the schema's entity
    /// numbers, metadata with the model's hashes), all in one transaction. A file left by a
    /// creation that failed is an empty database, which `openOrCreate` creates the store in.
    /// At `/dev/null` the store is a new in-memory database (`SQLiteConnection.isInMemory(_:)`).
    /// - Throws: `NSPersistentStoreOpenError` if a file already exists at `url`, or naming the
    ///   file and SQLite's reason when it cannot be written (a full disk, a file-size limit);
    ///   `NSSQLiteError` with the statement when SQLite refuses the model's schema (then no
    ///   file is created).
    package static func create(
        at url: URL, schema: StoreSchema, versionHashes: [String: Data], versionIdentifiers: [String] = [""],
        pragmas: [(name: String, value: String)] = []
    ) throws -> SQLiteStoreFile {
        let path = url.path
        let inMemory = SQLiteConnection.isInMemory(url)
        guard inMemory || !FileManager.default.fileExists(atPath: path) else {
            throw SQLiteStoreError.open("A file already exists at \(path)", path: path)
        }
        if !inMemory {
            // The model's statements, tried where a failure leaves nothing behind.
            let scratch = try SQLiteConnection(url: URL(fileURLWithPath: "/dev/null"), mode: .create)
            let layout = try AppleSQLLayout(schema: schema)
            do {
                try scratch.transaction { for statement in layout.createStatements { try scratch.execute(statement) } }
            } catch let error as NSError {
                throw SQLiteStoreError.sqlite(
                    "SQLite refuses the model's schema for \(path), so no store was created: \(error.localizedDescription)",
                    resultCode: Int32((error.userInfo["NSSQLiteErrorDomain"] as? Int) ?? Int(SQLITE_ERROR)), sql: nil, path: path)
            }
        }
        // `createSchema` sets the journal mode the pragmas ask for.
        let connection = try SQLiteConnection(url: url, mode: .create, walWhenNew: false)
        guard
            try createSchema(
                in: connection, schema: schema, versionHashes: versionHashes, versionIdentifiers: versionIdentifiers,
                journalMode: journalMode(in: pragmas))
        else {
            throw SQLiteStoreError.open("A store was created at \(path) by another connection at the same time", path: path)
        }
        try apply(pragmas, to: connection, readOnly: false)
        return try open(connection: connection, schema: schema, modelVersionHashes: nil)
    }

    /// Writes a new store's schema, primary key rows and metadata into an empty database, in one
    /// transaction that first checks again that the database is empty.
    /// - Returns: false when the database was not empty (another connection created the store).
    /// - Throws: `NSPersistentStoreOpenError` naming the file and SQLite's reason.
    private static func createSchema(
        in connection: SQLiteConnection, schema: StoreSchema, versionHashes: [String: Data], versionIdentifiers: [String],
        journalMode: String
    ) throws -> Bool {
        let path = connection.url.path
        let layout = try AppleSQLLayout(schema: schema)
        let metadata = AppleSQLMetadata(versionHashes: versionHashes, versionIdentifiers: versionIdentifiers)
        do {
            if !connection.isInMemoryDatabase { try connection.execute("PRAGMA journal_mode = \(journalMode)") }
            try connection.execute("PRAGMA auto_vacuum = 2")
            return try connection.transaction {
                guard try isEmptyDatabase(connection) else { return false }
                for statement in layout.createStatements { try connection.execute(statement) }
                try AppleSQLPrimaryKeys.insert(layout.primaryKeyRows, into: connection)
                try metadata.write(to: connection)
                return true
            }
        } catch let error as NSError {
            throw SQLiteStoreError.open(
                "Can't create the store \(path): \(error.localizedDescription). The file holds no store; opening it "
                    + "read-write again creates the store",
                path: path, resultCode: (error.userInfo["NSSQLiteErrorDomain"] as? Int).map { Int32(truncatingIfNeeded: $0) })
        }
    }

    /// True when the database holds nothing at all: no table, index, view or trigger, and no
    /// `user_version` or `application_id` set (a zero-length file is such a database). Only such
    /// a file is taken for a creation that was interrupted.
    package static func isEmptyDatabase(_ connection: SQLiteConnection) throws -> Bool {
        for sql in ["SELECT count(*) FROM sqlite_master", "PRAGMA user_version", "PRAGMA application_id"] {
            let statement = try connection.statement(sql)
            defer { statement.reset() }
            guard try statement.step(), statement.int64(at: 0) == 0 else { return false }
        }
        return true
    }

    // MARK: - Checks before opening

    /// Refuses a store path (or a `-wal`, `-shm` or `-journal` beside it) that is not a regular
    /// file: reading a FIFO waits forever for a writer, and a directory or a device is no
    /// store. Symbolic links are followed.
    /// - Throws: `NSPersistentStoreOpenError` naming the file and what it is.
    package static func refuseSpecialFiles(at url: URL) throws {
        guard !SQLiteConnection.isInMemory(url) else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let path = url.path + suffix
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            guard type != S_IFREG else { continue }
            let kind: String
            switch type {
            case S_IFIFO: kind = "a FIFO (named pipe)"
            case S_IFDIR: kind = "a directory"
            case S_IFCHR: kind = "a character device"
            case S_IFBLK: kind = "a block device"
            case S_IFSOCK: kind = "a socket"
            default: kind = "not a regular file"
            }
            throw SQLiteStoreError.open(
                "The store file \(path) is \(kind), not a regular file: a store is a regular file", path: path)
        }
    }

    /// Refuses a file opened for writing that can only be read (SQLite then opens it read-only
    /// without a word, and only the first save would fail), or whose journal cannot be written.
    /// - Throws: `NSPersistentStoreOpenError` naming the file.
    private static func refuseReadOnlyFile(_ connection: SQLiteConnection, readOnly: Bool) throws {
        guard !readOnly else { return }
        let path = connection.url.path
        let folder = connection.url.deletingLastPathComponent().path
        var reason: String?
        if sqlite3_db_readonly(connection.handle, "main") == 1 {
            reason = "the file can't be written (its permissions, or a read-only file system)"
        } else {
            let journal = (try? connection.journalMode()) ?? ""
            let sideFiles = journal == "wal" ? ["-wal", "-shm"] : journal == "delete" ? ["-journal"] : []
            for suffix in sideFiles {
                let side = path + suffix
                let writable = FileManager.default.fileExists(atPath: side) ? access(side, W_OK) == 0 : access(folder, W_OK) == 0
                if !writable {
                    reason = "its journal \(side) can't be written (the folder's or the file's permissions)"
                    break
                }
            }
        }
        guard let reason else { return }
        throw SQLiteStoreError.open(
            "Can't open the store \(path) for writing: \(reason). Add it with NSReadOnlyPersistentStoreOption to read it",
            path: path, resultCode: SQLITE_READONLY)
    }

    // MARK: - Pragmas

    /// The journal mode a new store gets: `journal_mode` from the pragmas, else WAL.
    static func journalMode(in pragmas: [(name: String, value: String)]) -> String {
        pragmas.last(where: { $0.name.lowercased() == "journal_mode" })?.value ?? "WAL"
    }

    /// Sets each pragma on the connection (`PRAGMA name = value`). Names must be identifiers and
    /// values identifiers or integers, as no value can be bound in a pragma. A read-only
    /// connection keeps the file's journal mode.
    /// - Throws: `NSPersistentStoreOpenError` naming the pragma when one is malformed or SQLite
    ///   refuses it.
    static func apply(_ pragmas: [(name: String, value: String)], to connection: SQLiteConnection, readOnly: Bool) throws {
        let path = connection.url.path
        for (name, value) in pragmas {
            if readOnly && name.lowercased() == "journal_mode" { continue }
            guard isIdentifier(name), isIdentifier(value) || isInteger(value) else {
                throw SQLiteStoreError.open(
                    "The SQLite pragma \(name) = \(value) for \(path) is not a name and a name or whole number", path: path)
            }
            do {
                try connection.execute("PRAGMA \(name) = \(value)")
            } catch let error as NSError {
                throw SQLiteStoreError.open(
                    "Can't set the SQLite pragma \(name) = \(value) on \(path): \(error.localizedDescription)", path: path)
            }
        }
    }

    private static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
    }

    private static func isInteger(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
