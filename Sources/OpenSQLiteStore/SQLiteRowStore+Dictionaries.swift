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

    /// Runs a compiled dictionary fetch into `sink` (see `SQLDictionaryQuery.read(_:layout:conversions:into:)`).
    /// Call under the store's lock.
    func runDictionaries(_ compiled: SQLDictionaryQuery, into sink: inout some DictionaryRowSink) throws {
        let statement = try file.connection.statement(compiled.query.sql)
        defer { statement.reset() }
        try statement.bind(compiled.query.arguments)
        let layout = file.layout
        let conversions = compiled.conversions
        while try statement.step() { compiled.read(statement, layout: layout, conversions: conversions, into: &sink) }
    }
}

extension SQLDictionaryQuery {
    /// The kind each column's values are converted to, nil where reading them as their column's
    /// kind is enough (a conversion to the kind a value is read as changes nothing, but for
    /// narrow integers, clamped to their width).
    package var conversions: [AttributeKind?] {
        columns.map { column in
            guard let kind = column.resultKind else { return nil }
            switch (column.reader, kind) {
            case (.value(_, .integer64), .integer64), (.value(_, .double), .double), (.value(_, .string), .string),
                (.value(_, .date), .date), (.value(_, .boolean), .boolean):
                return nil
            default: return kind
            }
        }
    }

    /// Reads one result row by column index straight into `StoreValue`s of the column's kind,
    /// converted to its result kind (`conversions`), NULL left out, into `sink`.
    @inline(__always)
    package func read<Row: SQLRow>(
        _ row: Row, layout: SQLiteLayout, conversions: [AttributeKind?], into sink: inout some DictionaryRowSink
    ) {
        sink.appendRow()
        for (position, column) in columns.enumerated() {
            var value: StoreValue
            switch column.reader {
            // The commonest columns, unconverted, skip the `StoreValue`.
            case .value(let index, .string) where conversions[position] == nil:
                if let text = row.string(at: index) { sink.set(string: text, column: position) }
                continue
            case .value(let index, .integer64) where conversions[position] == nil:
                let number = row.int64(at: index)
                if number != 0 || !row.isNull(at: index) { sink.set(integer: number, column: position) }
                continue
            case .value(let index, let kind):
                value = row.value(at: index, kind: kind)
            case .object(let index, let entityColumn, let entityID):
                if row.isNull(at: index) {
                    value = .null
                } else {
                    let entity = entityColumn.flatMap { layout.entityID(forNumber: Int(row.int64(at: $0))) } ?? entityID
                    value = .object(ObjectKey(entityID: entity, primaryKey: row.int64(at: index)))
                }
            }
            if case .null = value { continue }
            if let kind = conversions[position] { value = value.converted(to: kind) }
            sink.set(value, column: position)
        }
        sink.endRow()
    }
}
