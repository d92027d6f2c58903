import ArgumentParser
import CoreData
import OpenSQLStore
import OpenSQLiteStore

#if PostgreSQL
    import OpenPostgreSQLStore
#endif

/// `coredata stores`: a store file's metadata and entities, read straight from its tables.
struct StoresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "Show a store's metadata (Z_METADATA), entities (Z_PRIMARYKEY) and row counts.",
        discussion: """
            Opens the file read-only and needs no model; with --model, also compares each entity's \
            version hash with the model's.
            """)

    @Option(name: .long, help: "A Core Data SQLite store file, or a postgres:// URL.")
    var store: String?

    @Argument(help: "The store, as --store gives it (the older spelling).")
    var path: String?

    @Option(name: .long, help: "A model to compare the store's version hashes with.")
    var model: String?

    func validate() throws {
        guard (store == nil) != (path == nil) else { throw ValidationError("give the store once: --store S (or S alone)") }
    }

    func run() throws {
        let model = try self.model.map(StoreOpener.model(at:))
        let report = try StoreReport(path: store ?? path ?? "")
        Console.print(report.text(comparingWith: model))
    }
}

/// What `stores` shows: the store's report (`SQLStoreReport`, read by its store), as text.
struct StoreReport {
    let path: String
    let report: SQLStoreReport

    init(path: String) throws {
        self.path = StoreOpener.redacted(path)
        let (type, location) = try StoreOpener.location(path)
        if type == NSPostgreSQLStoreType {
            #if PostgreSQL
                do {
                    report = try SQLStoreReport.postgreSQLStore(at: location)
                } catch {
                    throw ToolError.wrapping(error, "can't read the store \(self.path)")
                }
                return
            #else
                throw ToolError("this coredata was built without the PostgreSQL store (the package trait PostgreSQL)")
            #endif
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ToolError("no store file at \(path)")
        }
        do {
            report = try SQLStoreReport.sqliteFile(at: location)
        } catch {
            throw ToolError.wrapping(error, "can't read the store \(path)")
        }
    }

    func text(comparingWith model: NSManagedObjectModel?) -> String {
        let (metadata, entities, rowCounts) = (report.metadata, report.entities, report.rowCounts)
        var lines = [
            "Store \(path)",
            "  type: \(metadata.storeTypeName ?? "?")   UUID: \(metadata.storeUUID ?? "?")   journal mode: \(report.journalMode ?? "none (PostgreSQL)")",
            "  framework version: \(metadata.persistenceFrameworkVersion.map(String.init) ?? "?")"
                + "   model version identifiers: "
                + (metadata.versionIdentifiers.isEmpty
                    ? "none" : metadata.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", ")),
            "",
        ]
        let storeHashes = metadata.versionHashes
        let modelHashes = model?.entityVersionHashesByName
        let byNumber = Dictionary(entities.map { ($0.entityNumber, $0.name) }) { first, _ in first }
        var columns = ["Z_ENT", "entity", "parent", "Z_MAX", "rows"]
        if modelHashes != nil { columns.append("model") }
        columns.append("version hash")
        var rows: [[Cell]] = []
        for entity in entities {
            var row: [Cell] = [
                .integer(Int64(entity.entityNumber)), .string(entity.name),
                entity.superNumber == 0 ? .string("") : .string(byNumber[entity.superNumber] ?? "#\(entity.superNumber)"),
                .integer(entity.max), rowCounts[entity.entityNumber].map { .integer(Int64($0)) } ?? .string("no table"),
            ]
            if let modelHashes {
                let verdict: String
                switch (modelHashes[entity.name], storeHashes[entity.name]) {
                case (nil, _): verdict = "not in model"
                case (let ours?, let theirs?): verdict = ours == theirs ? "same" : "differs"
                case (_?, nil): verdict = "no hash"
                }
                row.append(.string(verdict))
            }
            row.append(.string(storeHashes[entity.name].map(Self.hex) ?? ""))
            rows.append(row)
        }
        lines.append(ResultTable(columns: columns, rows: rows).rendered(as: .table))
        if let modelHashes {
            let names = Set(entities.map(\.name))
            let missing = modelHashes.keys.filter { !names.contains($0) }.sorted()
            let differing = entities.filter { modelHashes[$0.name] != nil && modelHashes[$0.name] != storeHashes[$0.name] }
            lines.append("")
            if missing.isEmpty && differing.isEmpty && modelHashes.count == storeHashes.count {
                lines.append("The model matches the store: every version hash is the same.")
            } else {
                var parts: [String] = []
                if !differing.isEmpty { parts.append("hashes differ for \(differing.map(\.name).joined(separator: ", "))") }
                if !missing.isEmpty { parts.append("not in the store: \(missing.joined(separator: ", "))") }
                if parts.isEmpty { parts.append("the store has entities the model lacks") }
                lines.append("The model does not match the store: \(parts.joined(separator: "; ")).")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
