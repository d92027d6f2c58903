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
    /// - Throws: the error of `AppleExternalDataFolder.value(ofColumn:entity:attribute:)` for a
    ///   value kept in a file that is missing or unreadable (the row is then not added).
    @inlinable
    package func read<Row: SQLRow>(
        _ row: Row, layout: AppleSQLLayout, conversions: [AttributeKind?], into sink: inout some DictionaryRowSink
    ) throws {
        // Values in files are read before the row is begun: an error leaves no row half made.
        // (No dictionary at all without them: making an empty one cost 29 instructions a row.)
        var external: [Int: StoreValue]?
        if hasExternalData {
            var values: [Int: StoreValue] = [:]
            for position in columns.indices {
                guard case .externalData(let index, let entity, let attribute) = columns[position].reader else {
                    continue
                }
                values[position] = try Self.externalValue(
                    row, at: index, layout: layout, entity: entity, attribute: attribute)
            }
            external = values
        }
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
            case .externalData:
                value = external?[position] ?? .null
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

    /// The value of a column in Apple's external data layout (see `AppleExternalData`).
    @usableFromInline
    static func externalValue<Row: SQLRow>(
        _ row: Row, at index: Int32, layout: AppleSQLLayout, entity: String, attribute: String
    ) throws -> StoreValue {
        guard let column = row.data(at: index) else { return .null }
        guard let folder = layout.externalData else { return .data(column) }
        return .data(try folder.value(ofColumn: column, entity: entity, attribute: attribute))
    }
}
