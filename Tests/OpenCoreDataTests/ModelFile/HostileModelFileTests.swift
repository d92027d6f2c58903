import Foundation
import OpenCoreData
import TestSupport
import Testing

/// A generator of hostile model files, along five axes: nesting depth, size, names, cycles and
/// bad derivations, plus seeded random mutations of a valid file. Every case must either load
/// into a usable model (a store opens, an object of every entity saves, and fetches count them)
/// or throw an error in `NSCocoaErrorDomain` whose text names the file; never crash or hang.
/// Loading must also grow about linearly: n and 4n entities are timed against each other.
@Suite("Model files: hostile input")
struct HostileModelFileTests {
    /// What a generated case must do.
    enum Expectation: Sendable {
        /// Load, and be usable.
        case loads
        /// Be refused with an error whose text contains each of these.
        case refused(String, String = "")
        /// Either, as long as the rule above holds (random mutations).
        case either
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var expectation: Expectation
        var testDescription: String { name }
    }

    // MARK: - Generators

    /// An entity element with optional attributes of the given names (`String`).
    static func entity(_ name: String, parent: String? = nil, attributes: [String] = [], extra: String = "") -> String {
        let parentAttribute = parent.map { #" parentEntity="\#($0)""# } ?? ""
        let properties = attributes.map { #"<attribute name="\#($0)" optional="YES" attributeType="String"/>"# }
        return #"<entity name="\#(name)" representedClassName="\#(name)"\#(parentAttribute)>"# + properties.joined()
            + extra + "</entity>"
    }

    /// Nesting depth: elements of several kinds nested from a few levels to 50,000; past
    /// `256` levels the file is refused for its depth, before any unknown element is met.
    static let depthCases: [Case] = {
        var cases: [Case] = []
        for depth in [1, 3, 200, 254, 300, 3_000, 50_000] {
            let tooDeep = depth + 2 > 256  // <model> and <entity> come first
            cases.append(
                Case(
                    name: "userInfo nested \(depth) deep", body: entity("A", extra: nest("userInfo", depth)),
                    expectation: tooDeep
                        ? .refused("nested more than 256 levels")
                        : depth == 1 ? .loads : .refused("unknown element <userInfo> in <userInfo>")))
            let tooDeepAtRoot = depth + 1 > 256
            cases.append(
                Case(
                    name: "unknown elements nested \(depth) deep", body: nest("a", depth),
                    expectation: tooDeepAtRoot ? .refused("nested more than 256 levels") : .refused("unknown element <a>")))
        }
        // Deep nesting that is otherwise valid XML for a model: an <entry> inside entries.
        cases.append(
            Case(
                name: "entries nested 100,000 deep inside a userInfo",
                body: entity("A", extra: "<userInfo>" + nest("entry", 100_000) + "</userInfo>"),
                expectation: .refused("nested more than 256 levels")))
        cases.append(
            Case(name: "an entity at depth 2, as Xcode writes it", body: entity("A", attributes: ["x"]), expectation: .loads))
        return cases
    }()

    static func nest(_ element: String, _ depth: Int) -> String {
        String(repeating: "<\(element)>", count: depth) + String(repeating: "</\(element)>", count: depth)
    }

    /// Names: valid ones (SQL keywords included) load; spaces, `@`, quotes, dots, empty names,
    /// non-ASCII letters, a wrong first letter, reserved names and duplicates are refused.
    static let nameCases: [Case] = {
        var cases: [Case] = []
        let validEntities = ["Select", "Order", "Group", "Table", "Index", "Where", "From", "Z_PK", "Z_ENT", "Item_2", "X"]
        for name in validEntities {
            cases.append(
                Case(name: "entity named \(name)", body: entity(name, attributes: ["value"]), expectation: .loads))
        }
        let validProperties = ["select", "order", "group", "where", "from", "z_pk", "z_ent", "z_opt", "index", "values", "a1_b2"]
        cases.append(
            Case(
                name: "attributes named like SQL keywords and Core Data columns", body: entity("A", attributes: validProperties),
                expectation: .loads))
        let badEntities: [(String, String)] = [
            ("My Entity", "only letters"), ("At@Sign", "only letters"), ("Quote&quot;d", "only letters"),
            ("Semi;colon", "only letters"), ("Dot.ted", "only letters"), ("Caf\u{E9}", "only letters"),
            ("\u{6F22}\u{5B57}", "only letters"), ("Emoji\u{1F600}", "only letters"), ("lower", "uppercase letter"),
            ("_Under", "uppercase letter"), ("9Nine", "uppercase letter"),
            (String(repeating: "A", count: 300), "at most 256"),
        ]
        for (name, message) in badEntities {
            cases.append(
                Case(name: "entity named \(name.prefix(20))", body: entity(name), expectation: .refused(message)))
        }
        let badProperties: [(String, String)] = [
            ("my name", "only letters"), ("@count", "only letters"), ("a.b", "only letters"), ("it's", "only letters"),
            ("drop table", "only letters"), ("na\u{EF}ve", "only letters"), ("Upper", "lowercase letter"),
            ("_private", "lowercase letter"), ("1st", "lowercase letter"), ("description", "reserved"),
            ("objectID", "reserved"), ("entity", "reserved"),
        ]
        for (name, message) in badProperties {
            cases.append(
                Case(
                    name: "attribute named \(name)", body: entity("A", attributes: [name]),
                    expectation: .refused("attribute name '\(name)' of entity 'A' is not valid: ", message)))
            cases.append(
                Case(
                    name: "relationship named \(name)",
                    body:
                        #"<entity name="A"><relationship name="\#(name)" optional="YES" maxCount="1" destinationEntity="A"/></entity>"#,
                    expectation: .refused("relationship name '\(name)' of entity 'A' is not valid: ", message)))
        }
        cases += [
            Case(name: "an empty entity name", body: entity(""), expectation: .refused("<entity> has no name")),
            Case(
                name: "an empty attribute name", body: entity("A", attributes: [""]),
                expectation: .refused("<attribute> has no name")),
            Case(
                name: "two entities with one name", body: entity("A") + entity("A"),
                expectation: .refused("a second entity named 'A'")),
            Case(
                name: "two attributes with one name", body: entity("A", attributes: ["x", "x"]),
                expectation: .refused("a second property named 'x' in entity 'A'")),
            Case(
                name: "attribute names that differ only in case", body: entity("Item", attributes: ["name", "nAme", "naME1"]),
                expectation: .loads),
            Case(
                name: "entity names that differ only in case", body: entity("Item") + entity("ItEm"),
                expectation: .refused("entity names 'Item' and 'ItEm' differ only in case")),
        ]
        return cases
    }()

    /// Cycles and dangling references: inheritance loops of every length up to 50, an entity
    /// that is its own parent, and relationships whose destination or inverse leads nowhere.
    static let cycleCases: [Case] = {
        var cases: [Case] = []
        for length in [1, 2, 3, 7, 50] {
            let body = (0..<length).map { index in entity("E\(index)", parent: "E\((index + 1) % length)") }.joined()
            cases.append(
                Case(name: "an inheritance loop of \(length)", body: body, expectation: .refused("inherits from itself")))
        }
        cases.append(
            Case(
                name: "a chain that ends in a loop",
                body: entity("A", parent: "B") + entity("B", parent: "C") + entity("C", parent: "B"),
                expectation: .refused("the parentEntity chain of entity 'A' loops")))
        cases.append(
            Case(
                name: "a parent that does not exist", body: entity("A", parent: "Nope"),
                expectation: .refused("parentEntity 'Nope'")))
        let relationship = { (attributes: String) in
            #"<entity name="A"><relationship name="r" optional="YES" \#(attributes)/></entity>"#
        }
        cases += [
            Case(
                name: "a relationship to a missing entity", body: relationship(#"maxCount="1" destinationEntity="Nope""#),
                expectation: .refused("destinationEntity 'Nope' of relationship 'r' is not an entity of the model")),
            Case(
                name: "an inverse in a missing entity",
                body: relationship(#"maxCount="1" destinationEntity="A" inverseName="r" inverseEntity="Nope""#),
                expectation: .refused("inverseEntity 'Nope' of relationship 'r' is not an entity of the model")),
            Case(
                name: "an inverse that does not exist",
                body: relationship(#"maxCount="1" destinationEntity="A" inverseName="back""#),
                expectation: .refused("inverse 'back' of relationship 'r' is not a relationship of entity 'A'")),
            Case(
                name: "an inverse that is an attribute",
                body:
                    #"<entity name="A"><attribute name="x" optional="YES" attributeType="String"/><relationship name="r" optional="YES" maxCount="1" destinationEntity="A" inverseName="x"/></entity>"#,
                expectation: .refused("inverse 'x' of relationship 'r' is not a relationship of entity 'A'")),
            Case(
                name: "a relationship that is its own inverse",
                body: relationship(#"maxCount="1" destinationEntity="A" inverseName="r" inverseEntity="A""#), expectation: .loads),
            Case(
                name: "a to-many relationship to itself", body: relationship(#"toMany="YES" destinationEntity="A""#),
                expectation: .loads),
            Case(
                name: "a fetched property on a missing entity",
                body:
                    #"<entity name="A"><fetchedProperty name="f" optional="YES"><fetchRequest name="r" entity="Nope"/></fetchedProperty></entity>"#,
                expectation: .refused("entity 'Nope' of fetchRequest 'r' is not an entity of the model")),
        ]
        return cases
    }()

    /// Derivations that read keys the entity does not have are refused when the file loads;
    /// the ones that lead somewhere load and compute on save.
    static let derivationCases: [Case] = {
        let book = { (format: String) in
            let type = format.contains("count") || format.contains("@sum") ? "Integer 64" : format == "now()" ? "Date" : "String"
            return #"""
                <entity name="Book"><attribute name="title" optional="YES" attributeType="String"/>\#
                <attribute name="d" optional="YES" attributeType="\#(type)" derived="YES" derivationExpression="\#(format)"/>\#
                <relationship name="pages" optional="YES" toMany="YES" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>\#
                <fetchedProperty name="fetched" optional="YES"><fetchRequest name="r" entity="Page"/></fetchedProperty></entity>\#
                <entity name="Page"><attribute name="number" optional="YES" attributeType="Integer 32"/>\#
                <relationship name="book" optional="YES" maxCount="1" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/></entity>
                """#
        }
        let missing = "cannot be computed"
        let cases: [(String, Expectation)] = [
            ("missing", .refused("the key path 'missing' names 'missing', which is not a property of entity 'Book'")),
            ("lowercase:(missing)", .refused(missing)), ("missing.@count", .refused(missing)),
            ("pages.missing", .refused("names 'missing', which is not a property of entity 'Page'")),
            ("pages.@sum.missing", .refused("names 'missing', which is not a property of entity 'Page'")),
            ("pages.@sum.number", .loads), ("SELF.title", .loads),
            ("book.title", .refused("'book', which is not a property of entity 'Book'")),
            ("fetched.@count", .refused("fetched property 'fetched'")), ("uppercase:(title)", .loads), ("pages.@count", .loads),
            ("count:(pages)", .loads), ("title", .loads), ("now()", .loads), ("d", .loads),
            ("title +", .refused("does not parse")),
            ("", .refused("has no derivationExpression")), ("SELF.pages.@count", .loads),
            // A custom function's receiver, a subquery's members and a conditional's predicate
            // are read too (a receiver naming no key once loaded and stopped the process at save).
            ("FUNCTION(missing, &apos;uppercaseString&apos;)", .refused(missing)),
            ("FUNCTION(title, &apos;uppercaseString&apos;)", .loads),
            ("SUBQUERY(pages, $p, $p.missing &gt; 1).@count", .refused("'missing', which is not a property of entity 'Page'")),
            ("SUBQUERY(pages, $p, $p.number &gt; 1).@count", .loads),
            ("TERNARY(missing == 1, 1, 2)", .refused(missing)),
        ]
        return cases.map { Case(name: "derivation \($0.0)", body: book($0.0), expectation: $0.1) }
    }()

    /// Seeded random mutations of a valid model: names swapped for hostile ones, references
    /// pointed at other or missing entities, attributes dropped, the file cut short.
    static let mutationCases: [Case] = {
        var random = SplitMix64(seed: 0x17_0DE1)
        let hostileNames = [
            "", " ", "A B", "a b", "@", "a@b", "Z_PK", "Select", "select", "description", "\u{E9}t\u{E9}", "E0", "e0", "x",
            "Nope", "A\"B", "a;drop", "E1", "pages", String(repeating: "n", count: 300),
        ]
        var cases: [Case] = []
        for index in 0..<120 {
            var xml = validModelBody()
            let action = random.next(below: 6)
            switch action {
            case 0, 1:  // replace one name="…" value
                let targets = xml.ranges(of: #"name=""#)
                if let target = targets.randomElement(using: &random) {
                    let valueStart = target.upperBound
                    if let quote = xml[valueStart...].firstIndex(of: "\"") {
                        let replacement = hostileNames.randomElement(using: &random) ?? ""
                        xml.replaceSubrange(valueStart..<quote, with: replacement.replacingOccurrences(of: "\"", with: "&quot;"))
                    }
                }
            case 2:  // point a reference elsewhere
                let keys = ["parentEntity", "destinationEntity", "inverseName", "inverseEntity", "entity"]
                let key = keys.randomElement(using: &random) ?? "entity"
                if let target = xml.ranges(of: "\(key)=\"").randomElement(using: &random),
                    let quote = xml[target.upperBound...].firstIndex(of: "\"")
                {
                    xml.replaceSubrange(target.upperBound..<quote, with: hostileNames.randomElement(using: &random) ?? "")
                }
            case 3:  // add a parentEntity to a random entity
                if let target = xml.ranges(of: "<entity ").randomElement(using: &random) {
                    xml.replaceSubrange(target, with: #"<entity parentEntity="E\#(random.next(below: 4))" "#)
                }
            case 4:  // cut the file short
                let cut = random.next(below: xml.utf8.count)
                xml = String(decoding: xml.utf8.prefix(cut), as: UTF8.self)
            default:  // a derivation of a random key
                let formats = ["title", "missing", "uppercase:(title)", "e0", "lowercase:(missing)", "other.title", "SELF.title"]
                let format = formats.randomElement(using: &random) ?? ""
                xml = xml.replacingOccurrences(
                    of: #"<attribute name="title""#,
                    with:
                        #"<attribute name="derived" optional="YES" attributeType="String" derived="YES" derivationExpression="\#(format)"/><attribute name="title""#
                )
            }
            cases.append(Case(name: "mutation \(index) (action \(action))", body: xml, expectation: .either))
        }
        return cases
    }()

    /// The model the mutations start from: four entities, an inheritance chain, relationships
    /// with inverses, a fetched property, a template.
    static func validModelBody() -> String {
        #"""
        <entity name="E0" representedClassName="E0"><attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="pages" optional="YES" toMany="YES" destinationEntity="E2" inverseName="owner" inverseEntity="E2"/></entity>
        <entity name="E1" representedClassName="E1" parentEntity="E0"><attribute name="e1" optional="YES" attributeType="Integer 64"/></entity>
        <entity name="E2" representedClassName="E2"><attribute name="number" optional="YES" attributeType="Integer 32"/>
            <relationship name="owner" optional="YES" maxCount="1" destinationEntity="E0" inverseName="pages" inverseEntity="E0"/>
            <fetchedProperty name="others" optional="YES"><fetchRequest name="r" entity="E3" predicateString="x == 1"/></fetchedProperty></entity>
        <entity name="E3" representedClassName="E3"><attribute name="x" optional="YES" attributeType="Integer 16"/></entity>
        <fetchRequest name="all" entity="E0"/>
        """#
    }

    // MARK: - Tests

    @Test("Nesting depth: deep files are refused with the file named, not a stack overflow", arguments: depthCases)
    func depth(_ hostile: Case) throws { try check(hostile, storeType: NSInMemoryStoreType) }

    @Test("Names: valid names work in SQL; spaces, @, non-ASCII, reserved and duplicate names are refused", arguments: nameCases)
    func names(_ hostile: Case) throws { try check(hostile, storeType: NSSQLiteStoreType) }

    @Test("Cycles and references that lead nowhere are refused", arguments: cycleCases)
    func cycles(_ hostile: Case) throws { try check(hostile, storeType: NSInMemoryStoreType) }

    @Test("Derivations that read missing keys are refused at load", arguments: derivationCases)
    func derivations(_ hostile: Case) throws { try check(hostile, storeType: NSSQLiteStoreType) }

    @Test("Seeded random mutations of a valid model load and work, or are refused naming the file")
    func mutations() throws {
        var loaded = 0
        for hostile in Self.mutationCases {
            if try check(hostile, storeType: NSInMemoryStoreType) { loaded += 1 }
        }
        // Both outcomes occur: the generator is not only making files that fail to parse.
        #expect(loaded > 5 && loaded < Self.mutationCases.count - 5, "\(loaded) of \(Self.mutationCases.count) loaded")
    }

    /// Size: many entities, a deep inheritance chain, a wide one, many attributes; each loads,
    /// and four times the size takes less than ten times as long (linear is 4, quadratic 16).
    @Test("Loading time grows about linearly with entities, inheritance depth and attributes")
    func linearGrowth() throws {
        let shapes: [(String, (Int) -> String)] = [
            (
                "flat entities",
                { n in (0..<n).map { Self.entity("E\($0)", attributes: ["a\($0)", "b\($0)"]) }.joined() }
            ),
            (
                "an inheritance chain",
                { n in
                    (0..<n).map { Self.entity("E\($0)", parent: $0 == 0 ? nil : "E\($0 - 1)", attributes: ["a\($0)"]) }.joined()
                }
            ),
            (
                "an inheritance chain written leaves first",
                { n in
                    (0..<n).reversed().map { Self.entity("E\($0)", parent: $0 == 0 ? nil : "E\($0 - 1)", attributes: ["a\($0)"]) }
                        .joined()
                }
            ),
            (
                "one parent with many children",
                { n in (0..<n).map { Self.entity("E\($0)", parent: $0 == 0 ? nil : "E0", attributes: ["a\($0)"]) }.joined() }
            ),
            ("one entity with many attributes", { n in Self.entity("E", attributes: (0..<(4 * n)).map { "a\($0)" }) }),
        ]
        let folder = try TemporaryFolder()
        for (shape, body) in shapes {
            let small = try folder.write(modelXML(body(500)), to: "\(shape)/small.xcdatamodel/contents")
            let large = try folder.write(modelXML(body(2_000)), to: "\(shape)/large.xcdatamodel/contents")
            let (smallTime, largeTime) = try Self.bestLoadTimes(small, large)
            #expect(largeTime < smallTime * 10, "\(shape): 500 in \(smallTime), 2,000 in \(largeTime)")
        }
    }

    /// The fastest of five loads of each file, taken in turns so that a busy moment on the
    /// machine (other tests run in parallel) slows both sizes alike.
    static func bestLoadTimes(_ small: URL, _ large: URL) throws -> (Duration, Duration) {
        var best = (Duration.seconds(3600), Duration.seconds(3600))
        let clock = ContinuousClock()
        for _ in 0..<5 {
            var start = clock.now
            #expect(!(try NSManagedObjectModel(validatingContentsOf: small)).entities.isEmpty)
            best.0 = min(best.0, clock.now - start)
            start = clock.now
            #expect(!(try NSManagedObjectModel(validatingContentsOf: large)).entities.isEmpty)
            best.1 = min(best.1, clock.now - start)
        }
        return best
    }

    // MARK: - Checking a case

    /// Loads the case's file; a refusal must name the file, and a model that loads must work in
    /// a store of `storeType`. Returns whether it loaded.
    @discardableResult
    func check(_ hostile: Case, storeType: String) throws -> Bool {
        let folder = try TemporaryFolder()
        let file = try folder.write(modelXML(hostile.body), to: "Hostile.xcdatamodel/contents")
        let model: NSManagedObjectModel
        do {
            model = try NSManagedObjectModel(validatingContentsOf: file)
        } catch {
            let error = error as NSError
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.localizedDescription.contains(file.path), "\(hostile.name): \(error.localizedDescription)")
            #expect((error.userInfo[NSFilePathErrorKey] as? String) == file.path)
            #expect(NSManagedObjectModel(contentsOf: file) == nil)
            switch hostile.expectation {
            case .loads:
                Issue.record("\(hostile.name) should load, but: \(error.localizedDescription)")
            case .refused(let message, let detail):
                #expect(error.localizedDescription.contains(message), "\(hostile.name): \(error.localizedDescription)")
                if !detail.isEmpty {
                    #expect(error.localizedDescription.contains(detail), "\(hostile.name): \(error.localizedDescription)")
                }
            case .either:
                break
            }
            return false
        }
        if case .refused(let message, _) = hostile.expectation {
            Issue.record("\(hostile.name) loaded, but should be refused with '\(message)'")
        }
        try Self.use(model, storeType: storeType, in: folder)
        return true
    }

    /// Opens a store of the model, saves one object of every concrete entity, and counts them
    /// back: a model that loads must be usable.
    static func use(_ model: NSManagedObjectModel, storeType: String, in folder: TemporaryFolder) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil,
            at: try folder.storeURL(for: storeType, name: "Hostile.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let concrete = model.entities.filter { !$0.isAbstract }
        try context.performAndWait {
            for entity in concrete { _ = NSManagedObject(entity: entity, insertInto: context) }
            try context.save()
            context.reset()
            for entity in concrete {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                request.includesSubentities = false
                #expect(try context.count(for: request) == 1, "\(entity.name ?? "")")
            }
        }
    }
}
