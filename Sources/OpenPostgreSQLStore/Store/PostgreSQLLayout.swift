#if PostgreSQL
    import OpenPredicate
    import OpenSQLStore
    import OpenStoreCore

    /// Apple's layout (`AppleSQLLayout`: the same tables, columns, join tables and entity numbers) in
    /// a PostgreSQL schema, every identifier quoted so that it keeps Apple's case (`"ZBOOK"."ZTITLE"`).
    ///
    /// | attribute | column type | why |
    /// |---|---|---|
    /// | integers, Booleans, keys, `Z_PK`/`Z_ENT`/`Z_OPT` | `bigint` | Booleans 0/1, as Apple's SQLite store keeps them |
    /// | `Date` | `double precision` | seconds since 2001-01-01, as Apple's SQLite store keeps them |
    /// | `Double`, `Float` | `double precision` | |
    /// | `Decimal` | `numeric` | exact (Apple's SQLite store rounds to a double) |
    /// | `String`, `URI` | `text COLLATE "C"` | UTF-8 byte order, as SQLite's `BINARY`, so sorts and comparisons agree |
    /// | `UUID` | `uuid` | |
    /// | binary data, transformables | `bytea` | |
    ///
    /// Indexes: Apple's (each to-one key column, `Z_ENT` of a table with sub-entities, each join
    /// table's second column), a unique index per uniqueness constraint, and each fetch index
    /// without a partial-index condition. **Differences from Apple's SQLite store:** no R-tree
    /// indexes and no partial fetch indexes (fetches give the same answers without them), and
    /// `Z_METADATA.Z_PLIST` says `NSStoreType` `"PostgreSQL"`.
    extension AppleSQLLayout {
        /// `"NAME"`: an identifier as PostgreSQL keeps it (names are SQL identifiers already, see
        /// `AppleSQLLayout.checkNames`; longer ones than PostgreSQL keeps are shortened the same way
        /// everywhere: `SQLDialect.postgreSQLName(_:)`).
        static func quoted(_ name: String) -> String { SQLDialect.quotedPostgreSQLName(name) }

        /// Every name statements of this layout use, for `SQLDialect.finish(_:identifiers:)`.
        var postgreSQLIdentifiers: Set<String> {
            var names: Set<String> = [
                "Z_PK", "Z_ENT", "Z_OPT", "Z_PRIMARYKEY", "Z_NAME", "Z_SUPER", "Z_MAX", "Z_METADATA", "Z_VERSION", "Z_UUID",
                "Z_PLIST",
            ]
            for table in tables {
                names.insert(table.name)
                for column in table.columns { names.insert(column.name) }
            }
            for join in joinTables {
                names.formUnion([join.name, join.firstColumn, join.secondColumn])
                names.formUnion(join.orderColumns)
            }
            return names
        }

        /// The PostgreSQL type of each stored column of `table`, by name.
        private func postgreSQLTypes(of table: AppleSQLTable) -> [String: String] {
            var types: [String: String] = [:]
            for entityID in table.entityIDs {
                for slot in entities[entityID - 1].slots {
                    guard case .attribute(let column, let kind) = slot else { continue }
                    types[column] = Self.postgreSQLType(kind)
                }
            }
            return types
        }

        static func postgreSQLType(_ kind: AttributeKind) -> String {
            switch kind {
            case .integer16, .integer32, .integer64, .boolean, .objectID, .undefined: "bigint"
            case .date, .double, .float: "double precision"
            case .decimal: "numeric"
            case .string, .uri: "text COLLATE \"C\""
            case .uuid: "uuid"
            case .binary, .transformable: "bytea"
            }
        }

        /// The statements that create a new store's tables and indexes in the current schema,
        /// followed by `Z_PRIMARYKEY` and `Z_METADATA`.
        var postgreSQLCreateStatements: [String] {
            let q = Self.quoted
            var statements: [String] = []
            for table in tables {
                let types = postgreSQLTypes(of: table)
                let columns =
                    ["\(q("Z_PK")) bigint PRIMARY KEY", "\(q("Z_ENT")) bigint", "\(q("Z_OPT")) bigint"]
                    + table.columns.map { "\(q($0.name)) \(types[$0.name] ?? "bigint")" }
                statements.append("CREATE TABLE \(q(table.name)) (\(columns.joined(separator: ", ")))")
            }
            for join in joinTables {
                let columns =
                    ([join.firstColumn, join.secondColumn] + join.orderColumns).map { "\(q($0)) bigint" }
                    + ["PRIMARY KEY (\(q(join.firstColumn)), \(q(join.secondColumn)))"]
                statements.append("CREATE TABLE \(q(join.name)) (\(columns.joined(separator: ", ")))")
            }
            for table in tables {
                for column in table.columns where column.isForeignKey {
                    statements.append(
                        "CREATE INDEX \(q("\(table.name)_\(column.name)_INDEX")) ON \(q(table.name)) (\(q(column.name)))")
                }
                if table.hasSubentities {
                    statements.append("CREATE INDEX \(q("\(table.name)_Z_ENT_INDEX")) ON \(q(table.name)) (\(q("Z_ENT")))")
                }
            }
            for join in joinTables {
                statements.append(
                    "CREATE INDEX \(q("\(join.name)_\(join.secondColumn)_INDEX")) ON \(q(join.name)) "
                        + "(\(q(join.secondColumn)), \(q(join.firstColumn)))")
            }
            for entity in schema.entities {
                for index in entity.fetchIndexes where index.kind != .rTree && index.condition == nil {
                    if let statement = postgreSQLIndex(
                        "CREATE INDEX", name: "Z_\(entity.name)_\(index.name)", entity: entity.id,
                        elements: index.elements.map { ($0.slot, $0.ascending) })
                    {
                        statements.append(statement)
                    }
                }
                for constraint in entity.uniquenessConstraints {
                    let names = constraint.map { entity.properties[$0].name }.joined(separator: "_")
                    if let statement = postgreSQLIndex(
                        "CREATE UNIQUE INDEX", name: "Z_\(entity.name)_UNIQUE_\(names)", entity: entity.id,
                        elements: constraint.map { ($0, true) })
                    {
                        statements.append(statement)
                    }
                }
            }
            statements.append(
                "CREATE TABLE \(q("Z_PRIMARYKEY")) (\(q("Z_ENT")) bigint PRIMARY KEY, \(q("Z_NAME")) text, "
                    + "\(q("Z_SUPER")) bigint, \(q("Z_MAX")) bigint)")
            statements.append(
                "CREATE TABLE \(q("Z_METADATA")) (\(q("Z_VERSION")) bigint PRIMARY KEY, \(q("Z_UUID")) text, "
                    + "\(q("Z_PLIST")) bytea)")
            return statements
        }

        /// `<start> "<name>" ON "<TABLE>" ("<COLUMN>" ASC, …)` over an entity's slots; nil when a
        /// slot has no column of its own.
        private func postgreSQLIndex(
            _ start: String, name: String, entity entityID: Int, elements: [(slot: Int, ascending: Bool)]
        )
            -> String?
        {
            guard let columns = indexColumns(entity: entityID, elements: elements) else { return nil }
            let terms = columns.map { "\(Self.quoted($0.column)) \($0.ascending ? "ASC" : "DESC")" }
            return "\(start) \(Self.quoted(name)) ON \(Self.quoted(table(of: entityID).name)) (\(terms.joined(separator: ", ")))"
        }
    }
#endif
