import OpenStoreCore

extension SQLiteRowStore {
    /// Runs a compiled dictionary fetch (`SQLCompiler.compile(_:shape:)`): each row read by
    /// column index straight into `StoreValue`s of the column's kind, converted to its result
    /// kind, NULL left out, into `DictionaryRows` (no dictionary per row). Call under the store's lock.
    func runDictionaries(_ compiled: SQLDictionaryQuery) throws -> FetchOutput {
        let statement = try file.connection.statement(compiled.query.sql)
        defer { statement.reset() }
        try statement.bind(compiled.query.arguments)
        let layout = file.layout
        let columns = compiled.columns
        var results = DictionaryRows(columns: columns.map(\.name))
        while try statement.step() {
            results.appendRow()
            for (position, column) in columns.enumerated() {
                var value: StoreValue
                switch column.reader {
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
                if let kind = column.resultKind { value = value.converted(to: kind) }
                results.set(value, column: position)
            }
        }
        return .dictionaries(results)
    }
}
