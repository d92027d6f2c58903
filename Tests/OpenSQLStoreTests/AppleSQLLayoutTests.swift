import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

@Suite struct SQLiteLayoutTests {
    @Test func ddlOfANewStoreUsesApplesNames() throws {
        let layout = try AppleSQLLayout(schema: Library.schema)
        #expect(
            layout.createStatements == [
                "CREATE TABLE ZAUTHOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR INTEGER, Z_FOK_AUTHOR INTEGER, "
                    + "ZISCOLOR INTEGER, ZPUBLISHED TIMESTAMP, ZPRICE DECIMAL, ZTITLE VARCHAR, ZUNIQUEID BLOB, ZCOVER BLOB )",
                "CREATE TABLE ZPAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNUMBER INTEGER, ZBOOK INTEGER, Z2_BOOK INTEGER )",
                "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZURL VARCHAR )",
                "CREATE TABLE Z_2TAGS ( Z_2BOOKS INTEGER, Z_5TAGS INTEGER, PRIMARY KEY (Z_2BOOKS, Z_5TAGS) )",
                "CREATE INDEX ZBOOK_ZAUTHOR_INDEX ON ZBOOK (ZAUTHOR)",
                "CREATE INDEX ZBOOK_Z_ENT_INDEX ON ZBOOK (Z_ENT)",
                "CREATE INDEX ZPAGE_ZBOOK_INDEX ON ZPAGE (ZBOOK)",
                "CREATE INDEX Z_2TAGS_Z_5TAGS_INDEX ON Z_2TAGS (Z_5TAGS, Z_2BOOKS)",
                "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
                "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            ])
        #expect(
            layout.primaryKeyRows == [
                AppleSQLPrimaryKeyRow(entityNumber: 1, name: "Author", superNumber: 0, max: 0),
                AppleSQLPrimaryKeyRow(entityNumber: 2, name: "Book", superNumber: 0, max: 0),
                AppleSQLPrimaryKeyRow(entityNumber: 3, name: "GraphicNovel", superNumber: 2, max: 0),
                AppleSQLPrimaryKeyRow(entityNumber: 4, name: "Page", superNumber: 0, max: 0),
                AppleSQLPrimaryKeyRow(entityNumber: 5, name: "Tag", superNumber: 0, max: 0),
            ])
    }

    @Test func slotsSayWhereEachPropertyLives() throws {
        let layout = try AppleSQLLayout(schema: Library.schema)
        let novel = layout.entities[Library.graphicNovel - 1]
        #expect(layout.table(of: Library.graphicNovel).name == "ZBOOK")
        #expect(novel.slots[5] == .transient)
        #expect(novel.slots[6] == .toOne(column: "ZAUTHOR", entityColumn: nil, destination: 1))
        #expect(novel.slots[7] == .toManyByInverse(table: 2, column: "ZBOOK", orderColumn: nil, destination: 4))
        #expect(novel.slots[8] == .toManyByJoin(joinTable: 0, ownColumn: "Z_2BOOKS", memberColumn: "Z_5TAGS", orderColumn: nil, destination: 5))
        #expect(novel.slots[9] == .attribute(column: "ZISCOLOR", kind: .boolean))
        let author = layout.entities[Library.author - 1]
        #expect(author.slots[1] == .toManyByInverse(table: 1, column: "ZAUTHOR", orderColumn: "Z_FOK_AUTHOR", destination: 2))
        let tag = layout.entities[Library.tag - 1]
        #expect(tag.slots[2] == .toManyByJoin(joinTable: 0, ownColumn: "Z_5TAGS", memberColumn: "Z_2BOOKS", orderColumn: nil, destination: 2))
    }

    /// EasyLife 1.5.0 (README): `Z_2BLOCKING ( Z_2BLOCKEDBY INTEGER, Z_2BLOCKING INTEGER, PRIMARY KEY
    /// (Z_2BLOCKEDBY, Z_2BLOCKING) )` and `Z_2BLOCKING_Z_2BLOCKING_INDEX`, for TodoItem(2).blocking ↔
    /// blockedBy.
    @Test func reflexiveManyToManyMatchesEasyLife() throws {
        let schema = makeSchema([
            ("Project", nil, false, [attribute("name", .string), attribute("priority", .integer16)]),
            (
                "TodoItem", nil, false,
                [
                    attribute("date", .date), attribute("done", .boolean), attribute("name", .string), attribute("notes", .string),
                    attribute("repeats", .integer16),
                    PropertySchema(name: "blockedBy", kind: .toMany(destination: 2, inverse: "blocking", ordered: false)),
                    PropertySchema(name: "blocking", kind: .toMany(destination: 2, inverse: "blockedBy", ordered: false)),
                    PropertySchema(name: "project", kind: .toOne(destination: 1, inverse: nil)),
                ]
            ),
        ])
        let statements = try AppleSQLLayout(schema: schema).createStatements
        #expect(statements.contains("CREATE TABLE Z_2BLOCKING ( Z_2BLOCKEDBY INTEGER, Z_2BLOCKING INTEGER, PRIMARY KEY (Z_2BLOCKEDBY, Z_2BLOCKING) )"))
        #expect(statements.contains("CREATE INDEX Z_2BLOCKING_Z_2BLOCKING_INDEX ON Z_2BLOCKING (Z_2BLOCKING, Z_2BLOCKEDBY)"))
        #expect(statements.contains("CREATE INDEX ZTODOITEM_ZPROJECT_INDEX ON ZTODOITEM (ZPROJECT)"))
        #expect(
            statements.contains(
                "CREATE TABLE ZTODOITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDONE INTEGER, ZREPEATS INTEGER, "
                    + "ZPROJECT INTEGER, ZDATE TIMESTAMP, ZNAME VARCHAR, ZNOTES VARCHAR )"))
        #expect(statements.first == "CREATE TABLE ZPROJECT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPRIORITY INTEGER, ZNAME VARCHAR )")
    }

    @Test func sameNameInTwoSubentitiesGetsTwoColumns() throws {
        let schema = makeSchema([
            ("Shape", nil, true, [attribute("z", .integer64)]),
            ("Circle", 1, false, [attribute("size", .double)]),
            ("Label", 1, false, [attribute("size", .string)]),
        ])
        let layout = try AppleSQLLayout(schema: schema)
        #expect(layout.tables[0].columns.map(\.name) == ["ZZ", "ZSIZE", "ZSIZE1"])
        #expect(layout.entities[2].slots[1] == .attribute(column: "ZSIZE1", kind: .string))
    }

    @Test func existingNumbersComeFromTheStore() throws {
        let layout = try AppleSQLLayout(schema: Library.schema, entityNumbers: ["Author": 7, "Book": 3, "GraphicNovel": 4, "Page": 1, "Tag": 9])
        #expect(layout.entityNumber(of: Library.author) == 7)
        #expect(layout.entityID(forNumber: 9) == Library.tag)
        // Z<n>_ and Z_<n> use the store's numbers.
        #expect(layout.tables[2].columns.map(\.name) == ["ZNUMBER", "ZBOOK", "Z3_BOOK"])
        #expect(layout.joinTables[0].name == "Z_3TAGS")
        #expect(throws: NSError.self) { try AppleSQLLayout(schema: Library.schema, entityNumbers: ["Author": 1]) }
    }
}

/// Fetch indexes as Apple spells them (checked against Apple's own statements in
/// `AppleWrittenStoreTests.newStoresHaveApplesSchema`); descending elements say `DESC`.
@Suite struct SQLiteFetchIndexTests {
    @Test func fetchIndexesAreNamedAfterTheirEntity() throws {
        let base = makeSchema([
            ("Car", nil, false, [attribute("maker", .string), attribute("year", .integer16)]),
            ("SportCar", 1, false, [attribute("speed", .double)]),
        ])
        let indexes: [Int: [FetchIndexSchema]] = [
            1: [FetchIndexSchema(name: "byMakerAndYear", elements: [.init(slot: 0, ascending: true), .init(slot: 1, ascending: false)])],
            2: [FetchIndexSchema(name: "bySpeed", elements: [.init(slot: 2, ascending: true)])],
        ]
        let schema = StoreSchema(
            entities: base.entities.map { entity in
                EntitySchema(
                    id: entity.id, name: entity.name, isAbstract: entity.isAbstract, superID: entity.superID,
                    familyIDs: entity.familyIDs, properties: entity.properties, fetchIndexes: indexes[entity.id] ?? [])
            })
        let layout = try AppleSQLLayout(schema: schema)
        #expect(
            layout.fetchIndexStatements == [
                "CREATE INDEX Z_Car_byMakerAndYear ON ZCAR (ZMAKER COLLATE BINARY ASC, ZYEAR COLLATE BINARY DESC)",
                "CREATE INDEX Z_SportCar_bySpeed ON ZCAR (ZSPEED COLLATE BINARY ASC)",
            ])
        #expect(layout.createStatements.contains(layout.fetchIndexStatements[1]))
    }
}

/// Partial and R-tree fetch indexes: the `WHERE` of a partial index with its constants written
/// out, and Apple's R-tree table with the triggers that keep it.
@Suite struct SQLitePartialAndRTreeIndexTests {
    /// Place (1): name, latitude, longitude, visits, opened; Landmark (2) below it adds height.
    func layout(_ indexes: [Int: [FetchIndexSchema]]) throws -> AppleSQLLayout {
        let base = makeSchema([
            (
                "Place", nil, false,
                [
                    attribute("name", .string), attribute("latitude", .double), attribute("longitude", .double),
                    attribute("visits", .integer32), attribute("opened", .date), attribute("code", .uuid),
                ]
            ),
            ("Landmark", 1, false, [attribute("height", .float)]),
        ])
        let schema = StoreSchema(
            entities: base.entities.map { entity in
                EntitySchema(
                    id: entity.id, name: entity.name, isAbstract: entity.isAbstract, superID: entity.superID,
                    familyIDs: entity.familyIDs, properties: entity.properties, fetchIndexes: indexes[entity.id] ?? [])
            })
        return try AppleSQLLayout(schema: schema)
    }

    @Test(arguments: [
        ("visits >= 10", "ZVISITS >= 10"),
        ("10 <= visits", "ZVISITS >= 10"),
        ("name == nil", "ZNAME IS NULL"),
        ("nil != name", "ZNAME IS NOT NULL"),
        ("name == \"O'Hare\"", "ZNAME = 'O''Hare'"),
        ("latitude BETWEEN {-1.5, 2.25}", "ZLATITUDE BETWEEN -1.5 AND 2.25"),
        ("visits IN {1, 2, 3}", "ZVISITS IN (1, 2, 3)"),
        ("visits > 0 AND (name != nil OR NOT latitude < 0)", "(ZVISITS > 0 AND (ZNAME IS NOT NULL OR NOT (ZLATITUDE < 0)))"),
        ("TRUEPREDICATE", "1"),
    ])
    func partialConditionsAreWrittenOut(format: String, sql: String) throws {
        #expect(try layout([:]).indexCondition(NSPredicate(format: format), entity: 1) == sql)
    }

    @Test func constantsOfEveryKindAreLiterals() throws {
        let layout = try layout([:])
        let date = Date(timeIntervalSinceReferenceDate: 1_000.5)
        #expect(layout.indexCondition(NSPredicate(format: "opened > %@", date as NSDate), entity: 1) == "ZOPENED > 1000.5")
        #expect(layout.indexCondition(NSPredicate(format: "visits == %@", NSNumber(value: true)), entity: 1) == "ZVISITS = 1")
        let uuid = try #require(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF"))
        #expect(
            layout.indexCondition(NSPredicate(format: "code == %@", uuid as NSUUID), entity: 1)
                == "ZCODE = X'00112233445566778899AABBCCDDEEFF'")
        #expect(layout.indexCondition(NSPredicate(format: "height < 100"), entity: 2) == "ZHEIGHT < 100")
    }

    @Test(arguments: [
        "name BEGINSWITH 'A'", "name ==[c] 'a'", "visits == $LIMIT", "name.length > 2", "ANY visits > 1",
        "visits == latitude", "height > 1",  // height is Landmark's, not Place's
    ])
    func conditionsThatCannotBeWrittenGiveNil(format: String) throws {
        #expect(try layout([:]).indexCondition(NSPredicate(format: format), entity: 1) == nil)
    }

    @Test func partialIndexesCarryTheirCondition() throws {
        let layout = try layout([
            1: [
                FetchIndexSchema(
                    name: "byVisits", elements: [.init(slot: 3, ascending: false)],
                    condition: NSPredicate(format: "visits > 100")),
                FetchIndexSchema(
                    name: "byPrefix", elements: [.init(slot: 0, ascending: true)],
                    condition: NSPredicate(format: "name BEGINSWITH 'A'")),
            ]
        ])
        // The index whose condition cannot be written is left out rather than built over every row.
        #expect(
            layout.fetchIndexStatements == [
                "CREATE INDEX Z_Place_byVisits ON ZPLACE (ZVISITS COLLATE BINARY DESC) WHERE ZVISITS > 100"
            ])
    }

    @Test func rTreeIndexesAreAVirtualTableAndThreeTriggers() throws {
        let layout = try layout([
            2: [
                FetchIndexSchema(
                    name: "byLocation", kind: .rTree, elements: [.init(slot: 1, ascending: true), .init(slot: 2, ascending: true)])
            ]
        ])
        #expect(
            layout.fetchIndexStatements == [
                "CREATE VIRTUAL TABLE IF NOT EXISTS Z_Landmark_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, "
                    + "ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX)",
                "CREATE TRIGGER IF NOT EXISTS Z_Landmark_byLocation_INSERT AFTER INSERT ON ZPLACE FOR EACH ROW BEGIN "
                    + "INSERT OR REPLACE INTO Z_Landmark_byLocation (Z_PK, ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX) "
                    + "VALUES (NEW.Z_PK, NEW.ZLATITUDE, NEW.ZLATITUDE, NEW.ZLONGITUDE, NEW.ZLONGITUDE) ; END",
                "CREATE TRIGGER IF NOT EXISTS Z_Landmark_byLocation_UPDATE AFTER UPDATE ON ZPLACE FOR EACH ROW BEGIN "
                    + "DELETE FROM Z_Landmark_byLocation WHERE Z_PK = NEW.Z_PK ; "
                    + "INSERT INTO Z_Landmark_byLocation (Z_PK, ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX) "
                    + "VALUES (NEW.Z_PK, NEW.ZLATITUDE, NEW.ZLATITUDE, NEW.ZLONGITUDE, NEW.ZLONGITUDE) ; END",
                "CREATE TRIGGER IF NOT EXISTS Z_Landmark_byLocation_DELETE AFTER DELETE ON ZPLACE FOR EACH ROW BEGIN "
                    + "DELETE FROM Z_Landmark_byLocation WHERE Z_PK = OLD.Z_PK ; END",
            ])
    }
}
