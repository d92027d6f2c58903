import OpenPredicate
import OpenStoreCore

/// Where key paths start: the fetched row (`t0`) or the member rows of a sub-select (`m1`, …),
/// which a `SUBQUERY` variable or the rest of a to-many key path reads.
struct Scope {
    let alias: String
    let entityID: Int
}

/// What a key path reaches: a value (an operand), or a to-many relationship whose members the
/// rest of the path reads.
enum PathTarget {
    case operand(Operand)
    case toMany(ToManyPath)
}

/// A key path that reaches a to-many relationship: whose members, and what is read from them.
struct ToManyPath {
    /// The whole key path, for messages.
    let path: String
    /// The primary key of the row owning the relationship (`t0.Z_PK`, or a to-one's `t1.Z_PK`).
    let owner: String
    /// True when the owner is reached through to-ones (it may be missing: the value is then nil,
    /// not an empty collection).
    let ownerMayBeNull: Bool
    /// The relationship's storage (`.toManyByInverse` or `.toManyByJoin`).
    let storage: AppleSQLSlot
    let destination: Int
    /// The key path after the relationship (`["name"]`, `["@sum", "salary"]`, or none).
    let rest: [String]
}

/// The rows of a to-many: `FROM` text, the alias of the member rows and the condition linking
/// them to their owner.
struct Members {
    let scope: Scope
    let from: String
    let link: String
}

/// To-many key paths compiled to correlated sub-selects, with the in-memory engine's answers
/// (`PredicateCompiler`, `KeyValueReader`):
///
/// | predicate | SQL |
/// |---|---|
/// | `ANY people.name == 'x'` | `EXISTS (SELECT 1 FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK AND m1.ZNAME = ?)` |
/// | `ALL people.age > 3` | `NOT EXISTS (… AND NOT (COALESCE(m1.ZAGE > ?, 0)))`: true for an empty set |
/// | `NONE …` | `NOT (EXISTS …)` (the parser gives `NOT (ANY …)`) |
/// | `people.@count > 2` | `(SELECT COUNT(*) FROM ZPERSON m1 WHERE …) > ?` |
/// | `people.@sum.age`, `@avg`, `@min`, `@max` | `(SELECT COALESCE(SUM(m1.ZAGE), 0) …)`, `AVG`, `MIN`, `MAX` |
/// | `SUBQUERY(people, $p, $p.age > 3).@count` | `(SELECT COUNT(*) … AND m1.ZAGE > ?)` |
/// | `%@ IN people`, `people CONTAINS %@`, `people.name CONTAINS[c] 'x'` | `EXISTS` of a member equal to it |
///
/// Many-to-many members are read through the join table (`FROM Z_2PROJECTS m1j JOIN ZPROJECT m1
/// ON m1.Z_PK = m1j.Z_4PROJECTS WHERE m1j.Z_2MEMBERS = t0.Z_PK`). The in-memory rules kept:
/// - `ANY`/`ALL` compare each member's value as a direct comparison would (NULL names are nil:
///   `ANY people.name == nil` matches a department with a nameless member); `ALL` over no
///   members is true, `ANY` false. On a value that is not a collection, `ANY x op y` is
///   `x != nil AND x op y` and `ALL` is `x == nil OR x op y`.
/// - Through a missing to-one (`department.people.@count` of a person without department) the
///   value is nil, not 0: `@count`, `@sum`, … are NULL then; `SUBQUERY(…).@count` is 0.
/// - `@sum` of no members is 0, `@avg`/`@min`/`@max` nil; `@sum`/`@avg` take number attributes.
/// - A to-many compared without modifier is a collection: never equal to a single value,
///   never ordered, nil only through a missing to-one; `CONTAINS`/`IN` test membership.
/// - Two to-many steps in one key path (`department.people.projects.name`) is one of Apple's
///   documented SQL-store limits: the fetch fails, naming the key path.
///
/// **Differences from the in-memory engine:** `@sum`/`@avg` of `Double` and `Decimal` values add
/// in SQLite's order, as doubles (the in-memory engine adds decimals exactly, in member order),
/// so a comparison at the last digit may differ; `@sum` of integers past `Int64` fails in
/// SQLite (the in-memory engine goes on in `Double`).
extension CompilerState {
    // MARK: - Sides of a comparison

    /// One side of a comparison: a constant, a key path (from the fetched object or a `SUBQUERY`
    /// variable), `self`, a collection operator or a `SUBQUERY(…).@count`.
    mutating func side(_ expression: NSExpression, in predicate: NSComparisonPredicate) throws(NotCompilable) -> PathTarget {
        switch expression.expressionType {
        case .keyPath:
            let base = expression.operand
            let target: PathTarget
            switch base.expressionType {
            case .evaluatedObject:
                target = try resolve(expression.keyPath, from: root)
            case .variable:
                guard let scope = variables[base.variable] else {
                    throw NotCompilable("\(predicate): the variable $\(base.variable) is not a SUBQUERY's")
                }
                target = try resolve(expression.keyPath, from: scope)
            case .subquery where expression.keyPath == "@count":
                return .operand(.column(try subqueryCount(base, in: predicate), .integer64))
            default:
                throw NotCompilable("\(predicate): the key path \(expression) of a computed value is computed in memory only")
            }
            if case .toMany(let toMany) = target {
                if let first = toMany.rest.first, first.hasPrefix("@") {
                    return .operand(try collectionOperator(toMany, in: predicate))
                }
                try checkMemberPath(toMany)
            }
            return target
        case .variable:
            guard let scope = variables[expression.variable] else {
                throw NotCompilable("\(predicate): the variable $\(expression.variable) is not a SUBQUERY's")
            }
            return .operand(
                .object(
                    primaryKey: "\(scope.alias).Z_PK", entityColumn: "\(scope.alias).Z_ENT",
                    family: schema.entity(scope.entityID).familyIDs))
        case .function where Self.arithmeticOperators[expression.function] != nil:
            return .operand(try arithmetic(expression, in: predicate))
        case .function where Self.stringFunctions[expression.function] != nil:
            return .operand(try stringFunction(expression, in: predicate))
        default:
            return .operand(try operand(expression, in: predicate))
        }
    }

    /// Checks the rest of a to-many key path (to-ones, then an attribute or nothing) before it
    /// is read from the members: a second to-many step is one of Apple's limits; an operator or a
    /// key of an attribute's value (`people.name.@count`) reads the collection itself, in memory.
    func checkMemberPath(_ toMany: ToManyPath) throws(NotCompilable) {
        var current = toMany.destination
        for (index, name) in toMany.rest.enumerated() {
            let entity = schema.entity(current)
            guard let slot = entity.slotsByName[name] else {
                throw NotCompilable("the key path \(toMany.path): \(name) of the members is computed in memory only")
            }
            switch layout.entities[current - 1].slots[slot] {
            case .toOne(_, _, let destination):
                current = destination
            case .attribute where index == toMany.rest.count - 1:
                return
            case .attribute(_, .string) where index == toMany.rest.count - 2 && toMany.rest[index + 1] == "length":
                return
            case .toManyByInverse, .toManyByJoin:
                throw NotCompilable(
                    unsupported:
                        "the key path \(toMany.path) crosses two to-many relationships; a fetch from a SQL store allows one")
            case .transient:
                throw NotCompilable(
                    unsupported: "the key path \(toMany.path): \(name) is transient; the store does not keep its values")
            case .attribute, .unsupported:
                throw NotCompilable("the key path \(toMany.path): \(name) of the members is computed in memory only")
            }
        }
    }

    /// The destination entity of a to-many slot.
    func destination(of slot: AppleSQLSlot) -> Int? {
        switch slot {
        case .toManyByInverse(_, _, _, let destination), .toManyByJoin(_, _, _, _, let destination): destination
        default: nil
        }
    }

    // MARK: - Joins and sub-selects

    /// The alias of a to-one's destination reached from `scope` by `prefix`, joined once
    /// (`LEFT JOIN`) in the statement's or the sub-select's `FROM`.
    mutating func join(_ destination: Int, on foreignKey: String, prefix: String, in scope: Scope) -> String {
        let isRoot = scope.alias == root.alias
        let key = isRoot ? prefix : scope.alias + "/" + prefix
        if let join = joins[key] { return join.alias }
        let table = layout.table(of: destination).name
        let next: String
        if isRoot {
            next = "t\(joinClauses.count + 1)"
            joinClauses.append("LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(foreignKey)")
        } else {
            next = "\(scope.alias)t\(memberJoinClauses[scope.alias, default: []].count + 1)"
            memberJoinClauses[scope.alias, default: []].append("LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(foreignKey)")
        }
        joins[key] = (next, destination)
        return next
    }

    /// A new alias for the members of a to-many, with their `FROM` and link to the owner.
    mutating func members(of toMany: ToManyPath) throws(NotCompilable) -> Members {
        memberCount += 1
        let alias = "m\(memberCount)"
        let scope = Scope(alias: alias, entityID: toMany.destination)
        switch toMany.storage {
        case .toManyByInverse(let table, let column, _, _):
            return Members(
                scope: scope, from: "\(layout.tables[table].name) \(alias)", link: "\(alias).\(column) = \(toMany.owner)")
        case .toManyByJoin(let joinTable, let ownColumn, let memberColumn, _, let destination):
            let join = layout.joinTables[joinTable].name
            let table = layout.table(of: destination).name
            return Members(
                scope: scope, from: "\(join) \(alias)j JOIN \(table) \(alias) ON \(alias).Z_PK = \(alias)j.\(memberColumn)",
                link: "\(alias)j.\(ownColumn) = \(toMany.owner)")
        default:
            throw NotCompilable("the key path \(toMany.path): not a stored to-many relationship")
        }
    }

    /// `(SELECT <select> FROM <members> <their joins> WHERE <link> AND <condition>)`; call after
    /// compiling `condition`, which may have joined to-ones of the members.
    func subselect(_ members: Members, select: String, condition: String?) -> String {
        let joined = memberJoinClauses[members.scope.alias, default: []].map { " " + $0 }.joined()
        let filter = condition.map { " AND " + $0 } ?? ""
        return "(SELECT \(select) FROM \(members.from)\(joined) WHERE \(members.link)\(filter))"
    }

    /// What one member gives for the rest of a to-many key path: the member itself, or a value
    /// reached from it through to-ones.
    mutating func element(_ toMany: ToManyPath, _ members: Members) throws(NotCompilable) -> Operand {
        guard !toMany.rest.isEmpty else {
            let scope = members.scope
            return .object(
                primaryKey: "\(scope.alias).Z_PK", entityColumn: "\(scope.alias).Z_ENT",
                family: schema.entity(scope.entityID).familyIDs)
        }
        switch try resolve(toMany.rest.joined(separator: "."), from: members.scope) {
        case .operand(let operand): return operand
        case .toMany:
            throw NotCompilable(
                unsupported:
                    "the key path \(toMany.path) crosses two to-many relationships; a fetch from a SQL store allows one")
        }
    }

    // MARK: - Collection operators

    /// `@count`, `@sum.k`, `@avg.k`, `@min.k`, `@max.k` of a to-many, as a scalar sub-select.
    mutating func collectionOperator(_ toMany: ToManyPath, in predicate: NSComparisonPredicate) throws(NotCompilable) -> Operand {
        let name = toMany.rest[0]
        let members = try self.members(of: toMany)
        let select: String
        let kind: AttributeKind
        switch name {
        case "@count" where toMany.rest.count == 1:
            select = "COUNT(*)"
            kind = .integer64
        case "@sum", "@avg", "@min",
            "@max" where toMany.rest.count > 1:
            let valuePath = ToManyPath(
                path: toMany.path, owner: toMany.owner, ownerMayBeNull: toMany.ownerMayBeNull, storage: toMany.storage,
                destination: toMany.destination, rest: Array(toMany.rest.dropFirst()))
            guard case .column(let column, let valueKind) = try element(valuePath, members), let domain = domain(valueKind)
            else { throw NotCompilable("\(predicate): \(name) of objects is computed in memory only") }
            switch name {
            case "@min", "@max":
                select = (name == "@min" ? "MIN(" : "MAX(") + column + ")"
                kind = valueKind
            default:
                guard domain == .number else {
                    throw NotCompilable("\(predicate): \(name) of \(valueKind) values is computed in memory only")
                }
                if name == "@avg" {
                    select = "AVG(\(column))"
                    kind = .double
                } else {
                    select = "COALESCE(SUM(\(column)), 0)"
                    kind = [.double, .float, .decimal].contains(valueKind) ? valueKind : .integer64
                }
            }
        default:
            throw NotCompilable("\(predicate): the collection operator in \(toMany.path) is computed in memory only")
        }
        let sql = subselect(members, select: select, condition: nil)
        return .column(toMany.ownerMayBeNull ? "CASE WHEN \(toMany.owner) IS NULL THEN NULL ELSE \(sql) END" : sql, kind)
    }

    /// `SUBQUERY(toMany, $x, predicate).@count`: the members matching, counted.
    mutating func subqueryCount(_ subquery: NSExpression, in predicate: NSComparisonPredicate) throws(NotCompilable) -> String {
        guard let collection = subquery.collection as? NSExpression else {
            throw NotCompilable("\(predicate): the SUBQUERY's collection is computed in memory only")
        }
        let target = try side(collection, in: predicate)
        guard case .toMany(let toMany) = target, toMany.rest.isEmpty else {
            throw NotCompilable("\(predicate): SUBQUERY over anything but a to-many relationship is computed in memory only")
        }
        let members = try self.members(of: toMany)
        let name = subquery.variable
        let saved = variables[name]
        variables[name] = members.scope
        defer { variables[name] = saved }
        let condition = try self.condition(subquery.predicate, exact: false)
        // A SUBQUERY over a missing to-one's relationship is empty: its count is 0, not nil.
        return subselect(members, select: "COUNT(*)", condition: condition)
    }

    // MARK: - Comparisons with to-many collections

    /// `ANY`/`ALL` (`NONE` is `NOT ANY`): an `EXISTS` over the members, or over the one value of a
    /// key path without to-many.
    mutating func quantified(
        _ predicate: NSComparisonPredicate, left: PathTarget, right: PathTarget, exact: Bool
    ) throws(NotCompilable) -> String {
        let isAll = predicate.comparisonPredicateModifier == .all
        guard case .operand(let value) = right else {
            throw NotCompilable("\(predicate): a to-many on the right of ANY/ALL is computed in memory only")
        }
        let operatorType = predicate.predicateOperatorType
        let options = predicate.options
        switch left {
        case .toMany(let toMany):
            let members = try self.members(of: toMany)
            let member = try element(toMany, members)
            let test = try compare(
                member, value, operatorType: operatorType, options: options, pending: [], in: predicate, exact: isAll)
            let sql = subselect(members, select: "1", condition: isAll ? "NOT (\(test))" : test)
            return isAll ? "NOT EXISTS " + sql : "EXISTS " + sql
        case .operand(.column(let column, _)), .operand(.object(primaryKey: let column, _, _)):
            // A single value is a one-element collection; nil an empty one.
            let test = try compare(
                try operand(of: left), value, operatorType: operatorType, options: options, pending: [], in: predicate,
                exact: isAll || exact)
            return isAll ? "(\(column) IS NULL OR \(test))" : "(\(column) IS NOT NULL AND \(test))"
        case .operand(.constant):
            throw NotCompilable("\(predicate): ANY/ALL over a constant is computed in memory only")
        }
    }

    func operand(of target: PathTarget) throws(NotCompilable) -> Operand {
        guard case .operand(let operand) = target else { throw NotCompilable("a to-many relationship is not a value here") }
        return operand
    }

    /// A direct comparison with a to-many collection on one side: `CONTAINS`/`IN` test
    /// membership; other operators compare the collection itself (never equal to a single value,
    /// never ordered, nil only when its owner is missing).
    mutating func toManyComparison(
        _ predicate: NSComparisonPredicate, left: PathTarget, right: PathTarget, exact: Bool
    ) throws(NotCompilable) -> String {
        let operatorType = predicate.predicateOperatorType
        switch (left, right) {
        case (.toMany(let toMany), .operand(let value)) where operatorType == .contains,
            (.operand(let value), .toMany(let toMany)) where operatorType == .in:
            let members = try self.members(of: toMany)
            let member = try element(toMany, members)
            let test = try compare(
                member, value, operatorType: .equalTo, options: predicate.options, pending: [], in: predicate, exact: false)
            return "EXISTS " + subselect(members, select: "1", condition: test)
        case (.toMany(let toMany), .operand(.constant(let constant))), (.operand(.constant(let constant)), .toMany(let toMany)):
            let isNil = toMany.ownerMayBeNull ? "\(toMany.owner) IS NULL" : dialect.never
            let isNotNil = toMany.ownerMayBeNull ? "\(toMany.owner) IS NOT NULL" : dialect.always
            let collectionOnLeft: Bool
            if case .toMany = left { collectionOnLeft = true } else { collectionOnLeft = false }
            switch operatorType {
            case .equalTo, .notEqualTo:
                if case .collection = constant {
                    throw NotCompilable("\(predicate): a to-many compared with a collection is computed in memory only")
                }
                let null: Bool
                if case .null = constant { null = true } else { null = false }
                if operatorType == .equalTo { return null ? isNil : dialect.never }
                return null ? isNotNil : dialect.always
            case .in where collectionOnLeft, .contains where !collectionOnLeft:
                // The collection (nil or not) as an element of a constant container.
                guard case .collection(let elements) = constant else { return dialect.never }
                var hasNil = false
                for element in elements {
                    switch try classify(element, in: predicate) {
                    case .null: hasNil = true
                    case .collection:
                        throw NotCompilable("\(predicate): collections of collections are compared in memory only")
                    default: break
                    }
                }
                return hasNil ? isNil : dialect.never
            default:
                // Ordering, BETWEEN and string operators are false for a collection.
                return dialect.never
            }
        default:
            throw NotCompilable("\(predicate): this comparison of to-many collections is computed in memory only")
        }
    }
}
