import Foundation
import OpenStoreCore

extension SQLiteRowStore {
    /// Runs a dictionary fetch straight into `NSDictionary` results when it compiles to SQL (no
    /// `DictionaryRows` in between); otherwise as `execute(_:)` does, the plan compiled once.
    package func dictionaryResults(_ plan: FetchPlan, objectID: @escaping (ObjectKey) -> AnyObject) throws -> [NSDictionary] {
        guard case .dictionaries(let shape) = plan.output else { return [] }
        switch SQLCompiler(layout: file.layout).compile(plan, shape: shape) {
        case .compiled(let query):
            var builder = DictionaryResultBuilder(columns: query.columns.map(\.name), objectID: objectID)
            try withLock { try runDictionaries(query, into: &builder) }
            return builder.results
        case .unsupported(let reason):
            throw SQLiteStoreError.unsupportedFetch(reason, path: file.connection.url.path)
        case .notCompilable:
            guard case .dictionaries(let rows) = try runInMemory(plan) else { return [] }
            return rows.foundationResults(objectID: objectID)
        }
    }

    /// Runs a compiled dictionary fetch (`SQLCompiler.compile(_:shape:)`) into `DictionaryRows`.
    /// Call under the store's lock.
    func runDictionaries(_ compiled: SQLDictionaryQuery) throws -> FetchOutput {
        var rows = DictionaryRows(columns: compiled.columns.map(\.name))
        try runDictionaries(compiled, into: &rows)
        return .dictionaries(rows)
    }

    /// Runs a compiled dictionary fetch, each row read by column index straight into
    /// `StoreValue`s of the column's kind, converted to its result kind, NULL left out, into
    /// `sink`. Call under the store's lock.
    func runDictionaries(_ compiled: SQLDictionaryQuery, into sink: inout some DictionaryRowSink) throws {
        let statement = try file.connection.statement(compiled.query.sql)
        defer { statement.reset() }
        try statement.bind(compiled.query.arguments)
        let layout = file.layout
        let columns = compiled.columns
        // A conversion to the kind a value is read as changes nothing, but for narrow integers
        // (clamped to their width).
        let conversions: [AttributeKind?] = columns.map { column in
            guard let kind = column.resultKind else { return nil }
            switch (column.reader, kind) {
            case (.value(_, .integer64), .integer64), (.value(_, .double), .double), (.value(_, .string), .string),
                (.value(_, .date), .date), (.value(_, .boolean), .boolean):
                return nil
            default: return kind
            }
        }
        while try statement.step() {
            sink.appendRow()
            for (position, column) in columns.enumerated() {
                var value: StoreValue
                switch column.reader {
                // The commonest columns, unconverted, skip the `StoreValue`.
                case .value(let index, .string) where conversions[position] == nil:
                    if let text = statement.string(at: index) { sink.set(string: text, column: position) }
                    continue
                case .value(let index, .integer64) where conversions[position] == nil:
                    let number = statement.int64(at: index)
                    if number != 0 || !statement.isNull(at: index) { sink.set(integer: number, column: position) }
                    continue
                case .value(let index, let kind):
                    value = statement.value(at: index, kind: kind)
                case .object(let index, let entityColumn, let entityID):
                    if statement.isNull(at: index) {
                        value = .null
                    } else {
                        let entity = entityColumn.flatMap { layout.entityID(forNumber: Int(statement.int64(at: $0))) } ?? entityID
                        value = .object(ObjectKey(entityID: entity, primaryKey: statement.int64(at: index)))
                    }
                }
                if case .null = value { continue }
                if let kind = conversions[position] { value = value.converted(to: kind) }
                sink.set(value, column: position)
            }
            sink.endRow()
        }
    }
}
