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

    @Flag(name: .long, help: "Print the report as one JSON object (metadata, entities).")
    var json = false

    func validate() throws {
        guard (store == nil) != (path == nil) else { throw ValidationError("give the store once: --store S (or S alone)") }
    }

    func run() throws {
        let model = try self.model.map(StoreOpener.model(at:))
        let report = try StoreReport(path: store ?? path ?? "")
        if json {
            try Console.printJSON(report.json(comparingWith: model))
        } else {
            Console.print(report.text(comparingWith: model))
        }
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

    /// The report as JSON: the metadata, and each entity with its number, parent, `Z_MAX`, row
    /// count (null without a table), version hash (base64) and, with a model, `model`: `same`,
    /// `differs`, `no hash` or `not in model`, and `matchesModel` overall.
    func json(comparingWith model: NSManagedObjectModel?) -> [String: Any] {
        let metadata = report.metadata
        let byNumber = Dictionary(report.entities.map { ($0.entityNumber, $0.name) }) { first, _ in first }
        let modelHashes = model?.entityVersionHashesByName
        let entities = report.entities.map { entity -> [String: Any] in
            var object: [String: Any] = [
                "entityNumber": entity.entityNumber, "name": entity.name, "max": entity.max,
                "parent": entity.superNumber == 0 ? NSNull() : byNumber[entity.superNumber] ?? "#\(entity.superNumber)",
                "rows": report.rowCounts[entity.entityNumber] ?? NSNull(),
                "versionHash": metadata.versionHashes[entity.name]?.base64EncodedString() ?? NSNull(),
            ]
            if let modelHashes { object["model"] = verdict(entity.name, modelHashes) }
            return object
        }
        var object: [String: Any] = [
            "store": path, "type": metadata.storeTypeName ?? NSNull(), "uuid": metadata.storeUUID ?? NSNull(),
            "journalMode": report.journalMode ?? NSNull(),
            "frameworkVersion": metadata.persistenceFrameworkVersion ?? NSNull(),
            "versionIdentifiers": metadata.versionIdentifiers, "entities": entities,
        ]
        if let modelHashes { object["matchesModel"] = matches(modelHashes) }
        return object
    }

    /// How an entity's hash in the store compares with the model's.
    private func verdict(_ name: String, _ modelHashes: [String: Data]) -> String {
        switch (modelHashes[name], report.metadata.versionHashes[name]) {
        case (nil, _): return "not in model"
        case (let ours?, let theirs?): return ours == theirs ? "same" : "differs"
        case (_?, nil): return "no hash"
        }
    }

    /// Whether the model and the store have the same entities with the same hashes.
    private func matches(_ modelHashes: [String: Data]) -> Bool {
        modelHashes == report.metadata.versionHashes
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
            if let modelHashes { row.append(.string(verdict(entity.name, modelHashes))) }
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
