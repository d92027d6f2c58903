import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Predicates made at random from the shapes the hand-written cases cover one at a time —
/// comparisons of every attribute kind with constants of other kinds and nil, string operators
/// with their options, `IN` and `BETWEEN`, to-one paths, to-many quantifiers, counts,
/// aggregates and subqueries, key path against key path, arithmetic — nested under
/// `AND`, `OR` and `NOT`, so that NULLs meet three-valued logic in combinations no list of cases
/// names. Each runs through both stores with a sort and a window, compiled to SQL, and must give
/// the same keys and count; printed and parsed again, and archived and read back, it must print
/// the same and match the same rows. The generator is seeded: a failure names its predicate,
/// and the same predicates come on every run.
@Suite struct SQLRandomEquivalenceTests {
    /// Writes random predicate format strings over the company schema, for one fetched entity.
    struct PredicateMaker {
        var random: SplitMix64
        let entity: Int

        mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

        mutating func predicate(depth: Int = 0) -> String {
            guard depth < 3, chance(45) else { return atom() }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return "NOT (\(predicate(depth: depth + 1)))"
            case 1: return "(\(predicate(depth: depth + 1)) AND \(predicate(depth: depth + 1)))"
            default: return "(\(predicate(depth: depth + 1)) OR \(predicate(depth: depth + 1)))"
            }
        }

        mutating func comparison() -> String { pick(["<", "<=", ">", ">=", "==", "!="]) }

        mutating func number() -> String { pick(["0", "7", "14", "21.5", "35", "49", "-1", "0.75", "2.5", "nil", "'7'", "YES"]) }

        mutating func text() -> String {
            pick(["'bob'", "'Bob'", "'crepes'", "'Crèpes Suzette'", "'e'", "''", "'Li'", "'sales'", "'Sales'", "'Zoë'", "nil"])
        }

        mutating func stringOperator() -> String {
            let name = pick(["==", "!=", "<", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"])
            return name + pick(["", "", "[c]", "[d]", "[cd]"])
        }

        mutating func atom() -> String {
            switch entity {
            case Company.department: return departmentAtom()
            case Company.project: return projectAtom()
            default: return personAtom()
            }
        }

        mutating func personAtom() -> String {
            switch Int.random(in: 0..<24, using: &random) {
            case 0, 1: return "\(pick(["age", "ratio", "salary"])) \(comparison()) \(number())"
            case 2: return "\(pick(["name", "department.title"])) \(stringOperator()) \(text())"
            case 3: return "name \(pick(["LIKE", "LIKE[c]"])) '\(pick(["*e*", "?o?", "a*", "*", "Cr?pes*"]))'"
            case 4: return "active \(pick(["==", "!="])) \(pick(["YES", "NO", "nil"]))"
            case 5: return "born \(comparison()) CAST(\(pick([0, 864_000, 2_592_000])), 'NSDate')"
            case 6: return "\(pick(["age", "ratio"])) BETWEEN {\(pick([0, 7, 10])), \(pick([14, 30, 49]))}"
            case 7: return "age IN {\(pick(["7, 14", "0, 21, 35", "49"]))}"
            case 8: return "name IN\(pick(["", "[c]", "[cd]"])) {\(pick(["'bob', 'alice'", "'crepes'", "'Zoë', ''"]))}"
            case 9: return "department \(pick(["==", "!="])) nil"
            case 10: return "\(pick(["ANY", "ALL", "NONE"])) projects.name \(stringOperator()) \(text())"
            case 11: return "projects.@count \(comparison()) \(pick([0, 1, 2]))"
            case 12: return "\(pick(["age", "ratio", "salary"])) \(comparison()) \(pick(["age", "ratio", "salary"]))"
            case 13: return "name \(stringOperator()) department.title"
            case 14:
                return
                    "age \(pick(["+", "-", "*"])) \(pick(["1", "2.5", "ratio"])) \(comparison()) \(pick(["10", "20", "ratio"]))"
            case 15:
                return "SUBQUERY(projects, $x, $x.name \(stringOperator()) \(text())).@count \(comparison()) \(pick([0, 1]))"
            case 16: return "name MATCHES\(pick(["", "[c]", "[cd]"])) '\(pick(["[a-c].*", ".*e", "b.b", "crepes"]))'"
            case 17: return "department.people.\(pick(["@count", "@max.age", "@avg.ratio"])) \(comparison()) \(number())"
            case 18: return "\(pick(["ANY", "ALL", "NONE"])) department.people.age \(comparison()) \(pick(["age", "ratio", "7"]))"
            case 19: return "\(pick(["born", "uid", "department"])) \(pick(["==", "!="])) nil"
            case 20:
                return "\(pick(["name", "age", "active"])) \(pick(["==", "!=", "<"])) \(pick(["age", "name", "ratio", "active"]))"
            case 21: return "\(pick(["self", "department"])) \(pick(["==", "!="])) \(pick(["self", "department", "nil"]))"
            case 22:
                let inner =
                    "$x.name \(stringOperator()) \(text()) \(pick(["AND", "OR"])) NOT ($x.members.@count \(comparison()) 6)"
                return "SUBQUERY(projects, $x, \(inner)).@count \(comparison()) \(pick([0, 1, 2]))"
            default:
                return
                    "\(pick(["salary", "ratio"])) \(comparison()) \(pick(["2.5", "0", "1.25", "12"])) \(pick(["AND", "OR"])) age < 30"
            }
        }

        mutating func departmentAtom() -> String {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return "title \(stringOperator()) \(text())"
            case 1: return "\(pick(["ANY", "ALL", "NONE"])) people.\(pick(["age", "ratio"])) \(comparison()) \(number())"
            case 2: return "\(pick(["ANY", "ALL", "NONE"])) people.name \(stringOperator()) \(text())"
            case 3: return "people.@count \(comparison()) \(pick([0, 5, 15, 17]))"
            case 4:
                return "people.\(pick(["@sum", "@avg", "@min", "@max"])).age \(comparison()) \(pick(["5", "24.5", "350", "nil"]))"
            default:
                return "SUBQUERY(people, $p, $p.age \(comparison()) \(number())).@count \(comparison()) \(pick([0, 3, 10]))"
            }
        }

        mutating func projectAtom() -> String {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return "name \(stringOperator()) \(text())"
            case 1: return "\(pick(["ANY", "ALL", "NONE"])) members.age \(comparison()) \(number())"
            case 2: return "members.@count \(comparison()) \(pick([0, 6, 12]))"
            default: return "ANY members.department.title \(stringOperator()) \(text())"
            }
        }
    }

    static let entities: [(entityID: Int, family: Set<Int>, sorts: [[NSSortDescriptor]])] = [
        (
            Company.person, [Company.person, Company.manager],
            [
                [], [NSSortDescriptor(key: "age", ascending: true)],
                [NSSortDescriptor(key: "name", ascending: false), NSSortDescriptor(key: "ratio", ascending: true)],
                [NSSortDescriptor(key: "department.title", ascending: true, selector: "caseInsensitiveCompare:")],
            ]
        ),
        (Company.department, [Company.department], [[], [NSSortDescriptor(key: "title", ascending: false)]]),
        (Company.project, [Company.project], [[], [NSSortDescriptor(key: "name", ascending: true)]]),
    ]

    /// 2,000 predicates for people, 400 each for departments and projects.
    @Test(arguments: [(0, 2_000), (1, 400), (2, 400)])
    func randomPredicatesAgree(_ entityIndex: Int, _ count: Int) throws {
        let (entityID, family, sorts) = Self.entities[entityIndex]
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        let postgres = try Company.postgres(in: folder)
        let layout = try Company.layout()
        var maker = PredicateMaker(random: SplitMix64(seed: UInt64(entityIndex + 1) * 1_000_003), entity: entityID)
        var matched = Set<Int>()
        for index in 0..<count {
            let format = maker.predicate()
            let predicate = NSPredicate(format: format)
            let window = maker.pick([(0, 0), (0, 0), (3, 0), (5, 2)])
            let plan = FetchPlan(
                entityID: entityID, entityIDs: family, predicate: predicate, sortDescriptors: maker.pick(sorts),
                limit: window.0, offset: window.1, output: .keys)
            guard case .compiled = SQLCompiler(layout: layout).compile(plan) else {
                Issue.record("#\(index) \(format) not compiled: \(SQLCompiler(layout: layout).compile(plan))")
                continue
            }
            try expectSameAnswers(sqlite, memory, plan, label: "#\(index) \(format)")
            // PostgreSQL: every eighth predicate (each query costs a millisecond of the debug
            // build's SwiftNIO).
            if let postgres, index % 8 == 0 {
                try expectSameAnswers(postgres, memory, plan, label: "PostgreSQL #\(index) \(format)")
            }
            var all = plan
            all.limit = 0
            all.offset = 0
            all.output = .count
            if case .count(let matching) = try memory.execute(all) { matched.insert(matching) }
            // What the predicate prints parses back to a predicate that prints the same and
            // matches the same rows; so does its archive (`NSSecureCoding`).
            let printed = predicate.description
            let reparsed = NSPredicate(format: printed)
            let data = try NSKeyedArchiver.archivedData(withRootObject: predicate, requiringSecureCoding: true)
            let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSPredicate.self], from: data) as? NSPredicate
            guard case .keys(let keys) = try memory.execute(plan) else { continue }
            for (how, copy) in [("printed", reparsed), ("archived", unarchived)] {
                #expect(copy?.description == printed, "#\(index) \(format) \(how)")
                var again = plan
                again.predicate = copy
                guard case .keys(let copyKeys) = try memory.execute(again) else { continue }
                #expect(copyKeys == keys, "#\(index) \(format) \(how)")
            }
        }
        // The predicates are not all trivially true or false: their answers vary (from none to
        // all of the 4 departments and 5 projects; over a third of the 60 people's counts).
        #expect(matched.count >= (entityID == Company.person ? 20 : 5), "\(matched)")
    }
}

/// Dictionary fetches made at random — key-path columns of every kind (through the to-one too)
/// and the object itself, aggregates of each function over each attribute with and without a
/// result kind, grouping by the plain columns, `having` on an aggregate's name, distinct, sorts by
/// key paths and aggregate names, windows and a random predicate — through both stores: the same dictionaries,
/// keys, value cases and order. Shapes the compiler refuses must still answer alike (the SQL
/// store runs them in memory); most are compiled.
@Suite struct SQLRandomDictionaryTests {
    static let attributes: [(path: String, kinds: [AttributeKind?])] = [
        ("age", [nil, .integer64, .double]), ("ratio", [nil, .double]), ("salary", [nil, .decimal, .double]),
        ("name", [nil, .string]), ("born", [nil, .date]), ("active", [nil, .boolean, .integer16]),
        ("department.title", [nil, .string]), ("department", [nil]),
    ]
    static let functions: [(name: String, numeric: Bool)] = [
        ("sum:", true), ("average:", true), ("min:", false), ("max:", false), ("count:", false),
    ]

    struct ShapeMaker {
        var maker: SQLRandomEquivalenceTests.PredicateMaker

        mutating func pick<T>(_ choices: [T]) -> T { maker.pick(choices) }
        mutating func chance(_ percent: Int) -> Bool { maker.chance(percent) }

        /// A shape, sort descriptors for it, and a description for failures.
        mutating func shape() -> (DictionaryShape, [NSSortDescriptor], String) {
            let grouped = chance(60)
            var columns: [DictionaryShape.Column] = []
            var groupBy: [DictionaryShape.Column] = []
            var sortKeys: [String] = []
            var aggregates: [String] = []
            var numbers: [String] = []
            let plain = Int.random(in: grouped ? 0...2 : 1...3, using: &maker.random)
            for (index, attribute) in SQLRandomDictionaryTests.attributes.shuffled(using: &maker.random).prefix(plain)
                .enumerated()
            {
                let name = chance(30) ? "c\(index)" : attribute.path
                let made = column(attribute.path, pick(attribute.kinds), name: name)
                columns.append(made)
                if grouped { groupBy.append(column(attribute.path)) }
                // Sorts name a plain column by its key path (an alias is not a key of the entity).
                sortKeys.append(attribute.path)
            }
            if !grouped && chance(15) { columns.append(selfColumn("me")) }
            if grouped || chance(25) {
                for index in 0..<Int.random(in: 1...3, using: &maker.random) {
                    let function = pick(SQLRandomDictionaryTests.functions)
                    let numeric = SQLRandomDictionaryTests.attributes.filter {
                        !function.numeric || ["age", "ratio", "salary"].contains($0.path)
                    }
                    let attribute = pick(numeric.filter { $0.path != "department" })
                    let name = "a\(index)"
                    let kind: AttributeKind? = function.name == "count:" ? pick([nil, .integer64]) : pick(attribute.kinds)
                    columns.append(aggregate(name, function.name, attribute.path, kind))
                    aggregates.append(name)
                    if function.numeric || function.name == "count:" { numbers.append(name) }
                }
                if !grouped {
                    // Aggregates without grouping: no plain columns beside them.
                    columns.removeAll { $0.expression.expressionType != .function }
                    sortKeys = []
                }
            }
            var having: NSPredicate?
            if grouped, let number = numbers.first, chance(40) {
                having = NSPredicate(format: "\(number) \(pick([">", "<", "!=", "=="])) \(pick(["1", "2", "25.5", "nil"]))")
            }
            let distinct = chance(25)
            var sort: [NSSortDescriptor] = []
            for name in (sortKeys + aggregates).shuffled(using: &maker.random).prefix(Int.random(in: 0...2, using: &maker.random))
            {
                sort.append(NSSortDescriptor(key: name, ascending: chance(50)))
            }
            let shape = DictionaryShape(columns: columns, groupBy: groupBy, having: having, distinct: distinct)
            let label =
                "columns \(columns.map { "\($0.name)=\($0.expression)/\($0.resultKind.map { "\($0)" } ?? "-")" }) "
                + "groupBy \(groupBy.map(\.name)) having \(having.map { "\($0)" } ?? "-") distinct \(distinct) sort \(sort.map(\.description))"
            return (shape, sort, label)
        }
    }

    @Test func randomDictionariesAgree() throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        let postgres = try Company.postgres(in: folder)
        let layout = try Company.layout()
        var shapes = ShapeMaker(
            maker: SQLRandomEquivalenceTests.PredicateMaker(random: .init(seed: 1), entity: Company.person))
        var compiled = 0
        let count = 1_000
        for index in 0..<count {
            let (shape, sort, label) = shapes.shape()
            let predicate = shapes.chance(50) ? NSPredicate(format: shapes.maker.predicate(depth: 1)) : nil
            let window = shapes.pick([(0, 0), (0, 0), (2, 1), (3, 0)])
            let family: Set<Int> = shapes.pick([[Company.person, Company.manager], [Company.person]])
            let plan = FetchPlan(
                entityID: Company.person, entityIDs: family, predicate: predicate, sortDescriptors: sort, limit: window.0,
                offset: window.1, output: .dictionaries(shape))
            let result = SQLCompiler(layout: layout).compile(plan, shape: shape)
            if case .compiled = result { compiled += 1 }
            if case .unsupported = result { continue }
            let expected = Result { try memory.execute(plan) }
            // PostgreSQL: every eighth shape (each query costs a millisecond of the debug build's
            // SwiftNIO).
            let viaPostgres = index % 8 == 0 ? postgres.map { [("PostgreSQL", $0 as any RowStore)] } ?? [] : []
            for (name, store) in [("SQLite", sqlite as any RowStore)] + viaPostgres {
                let actual = Result { try store.execute(plan) }
                switch (expected, actual) {
                case (.success(.dictionaries(let a)), .success(.dictionaries(let b))):
                    #expect(a == b, "\(name) #\(index) \(label) \(predicate.map { "\($0)" } ?? "") \(window)")
                case (.failure, .failure):
                    break
                default:
                    Issue.record("\(name) #\(index) \(label): memory \(expected), SQL \(actual)")
                }
            }
        }
        #expect(compiled > count * 3 / 4, "\(compiled) of \(count) compiled")
    }
}
