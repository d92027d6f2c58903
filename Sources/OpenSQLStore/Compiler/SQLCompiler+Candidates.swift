import OpenPredicate
import OpenStoreCore

/// A plan that does not compile exactly, narrowed by SQL: one `SELECT` of the rows that can
/// match, and the plan the in-memory engine runs over them.
package struct SQLCandidateQuery {
    /// Every column (`.rows`) of the rows that can match, by primary key, without limit.
    package let query: SQLQuery
    /// The original plan with, as its predicate, the part SQL did not decide (nil when it decided
    /// all of it, and only the order, say, is left to memory).
    package let plan: FetchPlan
}

extension SQLCompiler {
    /// What `compileCandidates(_:)` gives.
    package enum CandidateResult {
        case compiled(SQLCandidateQuery)
        /// The plan reads more than its entity's rows in memory (a relationship in what SQL does
        /// not decide, a dictionary result): the store runs it over every row.
        case notCompilable(String)
        /// As `Result.unsupported`: no SQL store runs the plan.
        case unsupported(String)
    }

    /// Narrows a plan `compile(_:)` could not compile: SQL selects the rows that can match and
    /// the in-memory engine runs the plan over those rows alone, instead of over every row of
    /// the store. It does when what SQL cannot decide reads only the fetched entity's own
    /// attributes (so its rows are all the engine needs):
    ///
    /// - the predicate's top-level `AND` terms that compile run in SQL and are not tested again;
    /// - each other term is tested in memory, and SQL keeps only the rows that can pass it:
    ///   the compiling parts of its `AND`s, its `OR`s when every branch narrows, and string
    ///   operators the dialect computes only in part (`stringCandidates`);
    /// - sorts, limit and offset run in memory, on the candidates.
    ///
    /// The answers are the engine's by construction: every row the plan matches is a candidate,
    /// and the engine tests every candidate.
    package func compileCandidates(_ plan: FetchPlan) -> CandidateResult {
        var state = CompilerState(layout: layout, entityID: plan.entityID, dialect: dialect)
        do {
            return .compiled(try state.candidates(plan))
        } catch {
            return error.isUnsupported ? .unsupported(error.reason) : .notCompilable(error.reason)
        }
    }
}

extension CompilerState {
    mutating func candidates(_ plan: FetchPlan) throws(NotCompilable) -> SQLCandidateQuery {
        if case .dictionaries = plan.output {
            throw NotCompilable("dictionary results that do not compile are computed over every row")
        }
        guard schema.entities.indices.contains(plan.entityID - 1) else {
            throw NotCompilable("entity \(plan.entityID) is not in the schema")
        }
        let attributes = Set(
            schema.entity(plan.entityID).properties.compactMap { property -> String? in
                guard case .attribute = property.kind, !property.isTransient else { return nil }
                return property.name
            })
        for descriptor in plan.sortDescriptors {
            // A sort no SQL store runs is refused here as in `compile(_:)`.
            var scratch = self
            do { _ = try scratch.sortKey(descriptor) } catch { if error.isUnsupported { throw error } }
            guard let key = descriptor.key, attributes.contains(key) else {
                throw NotCompilable("the sort on \(descriptor.key ?? "self") reads more than the entity's attributes")
            }
        }
        var unrestricted = plan
        unrestricted.predicate = nil
        var conditions = try filter(unrestricted)
        var left: [NSPredicate] = []
        for term in Self.terms(of: plan.predicate) {
            let saved = self
            do {
                conditions.append((try condition(term, exact: false), arguments))
                arguments = SQLArguments()
                continue
            } catch {
                if error.isUnsupported { throw error }
                self = saved
                guard Self.reads(term, onlyAttributes: attributes) else { throw error }
            }
            left.append(term)
            if let narrowing = candidates(term) {
                conditions.append((narrowing, arguments))
                arguments = SQLArguments()
            }
        }
        let table = layout.table(of: plan.entityID)
        var sql =
            "SELECT " + selectList(for: .rows, table: table) + " FROM \(table.name) t0" + joinClauses.map { " " + $0 }.joined()
        var final = SQLArguments()
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.map(\.sql).joined(separator: " AND ")
            for condition in conditions { _ = final.bind(condition.arguments.values) }
        }
        // In key order, as the store's compiled fetches break ties: the engine keeps its rows'
        // order where sorts tie.
        sql += " ORDER BY t0.Z_PK"
        var rest = plan
        rest.predicate = left.isEmpty ? nil : left.count == 1 ? left[0] : NSCompoundPredicate(andPredicateWithSubpredicates: left)
        return SQLCandidateQuery(query: SQLQuery(sql: sql, arguments: final.values), plan: rest)
    }

    /// A condition every row matching `predicate` meets (nil when there is none but `TRUE`):
    /// `predicate` itself where it compiles, else the parts of it that narrow.
    private mutating func candidates(_ predicate: NSPredicate) -> String? {
        let saved = self
        if let sql = try? condition(predicate, exact: false) { return sql }
        self = saved
        if let compound = predicate as? NSCompoundPredicate {
            switch compound.compoundPredicateType {
            case .and:
                let parts = compound.predicates.compactMap { candidates($0) }
                return parts.isEmpty ? nil : "(" + parts.joined(separator: " AND ") + ")"
            case .or:
                var parts: [String] = []
                for branch in compound.predicates {
                    guard let part = candidates(branch) else {
                        self = saved
                        return nil
                    }
                    parts.append(part)
                }
                return parts.isEmpty ? nil : "(" + parts.joined(separator: " OR ") + ")"
            default:
                return nil
            }
        }
        guard let comparison = predicate as? NSComparisonPredicate else { return nil }
        return stringCandidates(comparison)
    }

    /// The rows that can meet a string comparison PostgreSQL does not compute exactly
    /// (`SQLDialect.requireRegisteredFunctions`): a column of the entity, an operator
    /// (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `==` with options) and a constant that is ASCII
    /// once folded (`[c]`, `[d]`). In a row that is ASCII the engine's answer is the bytes'
    /// (case folded by `lower`, which folds A–Z only with the column's `"C"` collation), and
    /// no ASCII row passes that the bytes reject (`SQLCompiler+Strings.swift` lists why), so:
    ///
    /// - `BEGINSWITH` without options: the rows that begin with the constant's bytes (an index
    ///   on the column serves the range), unless it holds a character a canonical singleton
    ///   spells otherwise (the Kelvin sign for `K`, …);
    /// - `ENDSWITH` and `CONTAINS` without options: the rows whose bytes end with or hold the
    ///   constant's, with the same exception;
    /// - the others: the rows that are not ASCII, and the ASCII rows whose bytes answer true.
    private mutating func stringCandidates(_ comparison: NSComparisonPredicate) -> String? {
        guard dialect == .postgreSQL, comparison.comparisonPredicateModifier == .direct,
            comparison.leftExpression.expressionType == .keyPath,
            comparison.leftExpression.operand.expressionType == .evaluatedObject,
            comparison.rightExpression.expressionType == .constantValue,
            case .string(let constant)? = try? classify(comparison.rightExpression.constantValue, in: comparison),
            case .column(let column, let kind)? = try? keyPath(comparison.leftExpression.keyPath),
            domain(kind) == .string
        else { return nil }
        let flags = comparison.options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
        let needle = fold(constant, flags)
        guard !needle.isEmpty, needle.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let exactBytes = flags == 0 && !needle.unicodeScalars.contains { SQLCompiler.singletons[$0] != nil }
        let subject = flags & 1 != 0 ? "lower(\(column))" : column
        let count = Int64(needle.utf8.count)
        let test: String
        switch comparison.predicateOperatorType {
        case .beginsWith where exactBytes:
            return "(\(column) >= \(arguments.bind(.string(needle)))"
                + " AND \(column) < \(arguments.bind(.string(SQLCompiler.successor(needle)))))"
        case .beginsWith:
            test = "left(\(subject), \(arguments.bind(.integer(count)))::integer) = \(arguments.bind(.string(needle)))"
        case .endsWith:
            test = "right(\(subject), \(arguments.bind(.integer(count)))::integer) = \(arguments.bind(.string(needle)))"
        case .contains:
            test = "strpos(\(subject), \(arguments.bind(.string(needle)))) > 0"
        case .equalTo where flags != 0:
            test = "\(subject) = \(arguments.bind(.string(needle)))"
        default:
            return nil
        }
        return exactBytes ? test : "(octet_length(\(column)) <> char_length(\(column)) OR \(test))"
    }

    /// The top-level `AND` terms of a predicate.
    static func terms(of predicate: NSPredicate?) -> [NSPredicate] {
        guard let predicate else { return [] }
        guard let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .and else {
            return [predicate]
        }
        return compound.predicates.flatMap { terms(of: $0) }
    }

    /// Whether `predicate` reads nothing but constants and the evaluated object's `attributes`.
    static func reads(_ predicate: NSPredicate, onlyAttributes attributes: Set<String>) -> Bool {
        if let compound = predicate as? NSCompoundPredicate {
            return compound.predicates.allSatisfy { reads($0, onlyAttributes: attributes) }
        }
        if let comparison = predicate as? NSComparisonPredicate {
            return comparison.predicateOperatorType != .customSelector
                && reads(comparison.leftExpression, onlyAttributes: attributes)
                && reads(comparison.rightExpression, onlyAttributes: attributes)
        }
        return predicate.isEqual(truePredicate) || predicate.isEqual(falsePredicate)
    }

    private static func reads(_ expression: NSExpression, onlyAttributes attributes: Set<String>) -> Bool {
        switch expression.expressionType {
        case .constantValue:
            return true
        case .keyPath:
            return expression.operand.expressionType == .evaluatedObject && attributes.contains(expression.keyPath)
        case .function:
            // A function of its arguments (`FUNCTION()`'s receiver is its operand).
            return expression.operand.expressionType == .evaluatedObject
                && (expression.arguments ?? []).allSatisfy { reads($0, onlyAttributes: attributes) }
        case .aggregate:
            return (expression.collection as? [NSExpression])?.allSatisfy { reads($0, onlyAttributes: attributes) } ?? false
        default:
            return false
        }
    }
}
