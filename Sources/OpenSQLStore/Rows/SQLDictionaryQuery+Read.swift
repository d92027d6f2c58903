import OpenStoreCore

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
    @inlinable
    package func read<Row: SQLRow>(
        _ row: Row, layout: AppleSQLLayout, conversions: [AttributeKind?], into sink: inout some DictionaryRowSink
    ) {
        sink.appendRow()
        // By index: enumerating the columns retains and releases their array on every row.
        for position in columns.indices {
            var value: StoreValue
            switch columns[position].reader {
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
