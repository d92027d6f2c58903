import OpenStoreCore

/// The SQL a store's database speaks: what `SQLCompiler` writes differently for SQLite and for
/// PostgreSQL. One compiler writes both; the dialect supplies the few spellings that differ, and
/// says which parts have no exact counterpart (the store then runs the plan in memory, as the
/// SQLite store does for parts it does not compile).
///
/// | | SQLite | PostgreSQL |
/// |---|---|---|
/// | conditions | integers `1` / `0` | `TRUE` / `FALSE` |
/// | NULL-safe equality | `a IS b` | `a IS NOT DISTINCT FROM b` |
/// | `IN` a list | one JSON parameter, `json_each` | one JSON parameter, `json_array_elements` |
/// | placeholders | `?` | `$1`, `$2`, … (`finish(_:identifiers:)`) |
/// | identifiers | as the layout names them | quoted (`"ZBOOK"."ZTITLE"`) |
/// | sorts | NULL first ascending | `NULLS FIRST` / `NULLS LAST` spelled out |
/// | strings | `ocd_*` functions with Foundation's rules | in memory, over the rows SQL narrows to |
///
/// String columns of a PostgreSQL store are `COLLATE "C"` (`PostgreSQLLayout`), so comparisons
/// and sorts order UTF-8 bytes, as SQLite's `BINARY` does.
package enum SQLDialect: Sendable {
    case sqlite
    case postgreSQL

    /// A condition that always holds.
    var always: String { self == .sqlite ? "1" : "TRUE" }
    /// A condition that never holds.
    var never: String { self == .sqlite ? "0" : "FALSE" }

    /// `a` and `b` are both NULL or equal (`IS`).
    func same(_ a: String, _ b: String) -> String {
        self == .sqlite ? "\(a) IS \(b)" : "\(a) IS NOT DISTINCT FROM \(b)"
    }

    /// `a` and `b` differ, one of them NULL counting as different (`IS NOT`).
    func different(_ a: String, _ b: String) -> String {
        self == .sqlite ? "\(a) IS NOT \(b)" : "\(a) IS DISTINCT FROM \(b)"
    }

    /// A condition with NULL read as false.
    func orFalse(_ condition: String) -> String { "COALESCE(\(condition), \(never))" }

    /// The floating-point type of `CAST`.
    var double: String { self == .sqlite ? "REAL" : "double precision" }

    /// The `LIMIT` value that means no limit (with an `OFFSET`).
    var noLimit: StoreValue { self == .sqlite ? .integer(-1) : .null }

    /// What follows a sub-select in `FROM` (PostgreSQL 15 requires a name).
    var subqueryName: String { self == .sqlite ? "" : " AS q" }

    /// A sort term: PostgreSQL puts NULL last ascending unless told; the stores put it first.
    func order(_ sql: String, ascending: Bool) -> String {
        switch (self, ascending) {
        case (.sqlite, true): sql
        case (.sqlite, false): sql + " DESC"
        case (.postgreSQL, true): sql + " NULLS FIRST"
        case (.postgreSQL, false): sql + " DESC NULLS LAST"
        }
    }

    /// `subject IN` the keys of a JSON array parameter: primary keys or foreign keys (integer
    /// columns). PostgreSQL compares them as `bigint`, so that the column's index answers (as
    /// `numeric`, every row's key would be converted and the table scanned).
    package func inKeyList(_ subject: String, _ list: String) -> String {
        switch self {
        case .sqlite: inJSONList(subject, list, numbers: true)
        case .postgreSQL: "\(subject) IN (SELECT value::bigint FROM json_array_elements_text(\(list)::json) AS l(value))"
        }
    }

    /// `subject IN` the values of a JSON array parameter (numbers, strings or dates as seconds).
    func inJSONList(_ subject: String, _ list: String, numbers: Bool) -> String {
        switch self {
        case .sqlite: "\(subject) IN (SELECT value FROM json_each(\(list)))"
        case .postgreSQL:
            numbers
                ? "\(subject) IN (SELECT value::numeric FROM json_array_elements_text(\(list)::json) AS l(value))"
                : "\(subject) IN (SELECT value FROM json_array_elements_text(\(list)::json) AS l(value))"
        }
    }

    /// `(key, entity) IN` the pairs of a JSON array parameter `[[key, entity], …]`.
    func inJSONPairs(_ key: String, _ entity: String, _ list: String) -> String {
        switch self {
        case .sqlite:
            "(\(key), \(entity)) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(\(list)))"
        case .postgreSQL:
            "(\(key), \(entity)) IN (SELECT (value->>0)::bigint, (value->>1)::bigint FROM json_array_elements(\(list)::json) AS l(value))"
        }
    }

    /// Throws when the dialect has no exact counterpart of the store's registered functions
    /// (`ocd_*`: Foundation's string rules, `Decimal` sums) or collations; `what` names the part.
    func requireRegisteredFunctions(_ what: @autoclosure () -> String) throws(NotCompilable) {
        guard self == .postgreSQL else { return }
        throw NotCompilable(
            "\(what()): PostgreSQL has no function with Foundation's string rules, so the store evaluates it in memory")
    }

    /// The collations strings sort with for the localized selectors of sort descriptors, as
    /// (collation name, selector); the SQLite store registers them (`SQLiteCollations`), with
    /// Foundation's rules. Used only where `requireRegisteredFunctions(_:)` passes.
    package static let localizedCollations: [(name: String, selector: String)] = [
        ("ocd_localized", "localizedCompare:"),
        ("ocd_localized_ci", "localizedCaseInsensitiveCompare:"),
        ("ocd_localized_standard", "localizedStandardCompare:"),
    ]

    /// The collation of a sort selector (`localizedCollations`); nil for selectors compiled
    /// otherwise.
    static func collation(for selector: String) -> String? {
        localizedCollations.first { $0.selector == selector }?.name
    }

    /// The longest identifier PostgreSQL keeps (`NAMEDATALEN` - 1 bytes); it cuts longer ones.
    package static let postgreSQLNameLimit = 63

    /// A table, column or index name as the PostgreSQL store spells it: the name itself when
    /// PostgreSQL keeps it whole, else its first 46 bytes, `_` and 16 hexadecimal digits of its
    /// FNV-1a hash, so that two long names that begin alike stay apart (PostgreSQL would cut
    /// both to one name) and each is found again under the same name.
    package static func postgreSQLName(_ name: String) -> String {
        guard name.utf8.count > postgreSQLNameLimit else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        let head = String(decoding: name.utf8.prefix(postgreSQLNameLimit - 17), as: UTF8.self)
        return head + "_" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `"NAME"`, `postgreSQLName(name)` quoted, so that PostgreSQL keeps its case.
    package static func quotedPostgreSQLName(_ name: String) -> String { "\"\(postgreSQLName(name))\"" }

    /// The statement as the database reads it: for PostgreSQL, `?` placeholders numbered `$1`,
    /// `$2`, … in order, and every word of `identifiers` (the layout's table, column and index
    /// names) quoted, so that PostgreSQL keeps their case (`quotedPostgreSQLName(_:)`). Compiled SQL holds no constant text,
    /// so every `?` is a placeholder and every such word a name.
    package func finish(_ sql: String, identifiers: Set<String>) -> String {
        guard self == .postgreSQL else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 32)
        var placeholder = 0
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            result += identifiers.contains(word) ? Self.quotedPostgreSQLName(word) : word
            word = ""
        }
        for character in sql {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
                continue
            }
            flush()
            if character == "?" {
                placeholder += 1
                result += "$\(placeholder)"
            } else {
                result.append(character)
            }
        }
        flush()
        return result
    }
}
