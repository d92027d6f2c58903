import Foundation
import OpenSQLStore
import OpenStoreCore
import TestSupport
import Testing

/// The column format and folder of Apple's external data layout, as `AppleExternalData`
/// documents them.
@Suite struct AppleExternalDataTests {
    static let name = "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9"

    /// Columns and what they hold.
    static let cases: [(Data, AppleExternalData.Column)] = {
        let reference = Data([0x02]) + Data(name.utf8) + Data([0x00])
        let unterminated = Data([0x02]) + Data(name.utf8)
        let path = Data([0x02]) + Data("../../etc/passwd".utf8) + Data([0x00])
        return [
            (Data(), .plain(Data())),
            (Data([0x01]), .inline(Data())),
            (Data([0x01, 0x00, 0x02]), .inline(Data([0x00, 0x02]))),
            (reference, .file(name)),
            // Without its NUL, or naming no UUID, or another first byte: the bytes as they are.
            (unterminated, .plain(unterminated)),
            (path, .plain(path)),
            (Data([0x02, 0x00]), .plain(Data([0x02, 0x00]))),
            (Data([0x03, 0x01]), .plain(Data([0x03, 0x01]))),
        ]
    }()

    @Test(arguments: cases)
    func columnsParse(_ column: Data, _ expected: AppleExternalData.Column) {
        #expect(AppleExternalData.parse(column) == expected)
    }

    @Test func columnsAreWrittenAsDocumented() {
        #expect(AppleExternalData.inlineColumn(Data([0xAB])) == Data([0x01, 0xAB]))
        #expect(AppleExternalData.inlineColumn(Data()) == Data([0x01]))
        #expect(AppleExternalData.fileColumn(Self.name) == Data([0x02]) + Data(Self.name.utf8) + Data([0x00]))
        #expect(AppleExternalData.threshold == 102_400)
    }

    @Test func theFolderIsHiddenBesideTheStoreAndNamedAfterIt() {
        let store = URL(fileURLWithPath: "/data/app/Shop.v2.sqlite")
        #expect(AppleExternalData.supportFolder(forStoreAt: store).path == "/data/app/.Shop.v2_SUPPORT")
        #expect(AppleExternalData.folder(forStoreAt: store).path == "/data/app/.Shop.v2_SUPPORT/_EXTERNAL_DATA")
        #expect(
            AppleExternalData.folder(forStoreAt: URL(fileURLWithPath: "/data/Store")).path
                == "/data/.Store_SUPPORT/_EXTERNAL_DATA")
    }

    // MARK: - What the compiler does with such attributes

    /// Photo (1): `image`, allowing external storage, and `name`; the layout with an external
    /// data folder, as a SQLite store file's.
    static func layout() throws -> AppleSQLLayout {
        let schema = makeSchema([
            (
                "Photo", nil, false,
                [
                    PropertySchema(name: "image", kind: .attribute(.binary), allowsExternalBinaryDataStorage: true),
                    PropertySchema(name: "name", kind: .attribute(.string)),
                ]
            )
        ])
        var layout = try AppleSQLLayout(schema: schema)
        layout.externalData = AppleExternalDataFolder(
            storeURL: URL(fileURLWithPath: "/nonexistent/Photos.sqlite"), inMemory: false)
        return layout
    }

    static func plan(_ format: String, _ arguments: [Any] = [], output: FetchPlan.Output = .keys) -> FetchPlan {
        FetchPlan(entityID: 1, entityIDs: [1], predicate: NSPredicate(format: format, argumentArray: arguments), output: output)
    }

    @Test func comparisonsWithNilRunInSQLOnTheColumn() throws {
        let compiler = SQLCompiler(layout: try Self.layout())
        for (format, test) in [("image == nil", "t0.ZIMAGE IS NULL"), ("image != nil", "t0.ZIMAGE IS NOT NULL")] {
            guard case .compiled(let query) = compiler.compile(Self.plan(format)) else {
                Issue.record("\(format) did not compile")
                continue
            }
            #expect(query.sql.contains(test), "\(query.sql)")
        }
    }

    @Test func otherTestsAndSortsOfTheValuesRunInMemory() throws {
        let compiler = SQLCompiler(layout: try Self.layout())
        let data = Data([1, 2, 3]) as NSData
        for plan in [
            Self.plan("image == %@", [data]), Self.plan("image != %@ AND name == 'x'", [data]),
            FetchPlan(entityID: 1, entityIDs: [1], sortDescriptors: [NSSortDescriptor(key: "image", ascending: true)]),
        ] {
            guard case .notCompilable(let reason) = compiler.compile(plan) else {
                Issue.record("\(plan.predicate?.predicateFormat ?? "sort") compiled to SQL on the marked column")
                continue
            }
            #expect(reason.contains("external data"), "\(reason)")
        }
    }

    @Test func dictionaryColumnsReadTheValuesThroughTheFolder() throws {
        let compiler = SQLCompiler(layout: try Self.layout())
        let shape = DictionaryShape(columns: [
            DictionaryShape.Column(name: "image", expression: NSExpression(forKeyPath: "image"), resultKind: nil)
        ])
        guard case .compiled(let query) = compiler.compile(Self.plan("name != nil", output: .dictionaries(shape)), shape: shape)
        else {
            Issue.record("a plain column of the attribute did not compile")
            return
        }
        #expect(query.columns.map(\.reader) == [.externalData(0, entity: "Photo", attribute: "image")])
        let grouped = DictionaryShape(columns: shape.columns, groupBy: shape.columns)
        guard case .notCompilable = compiler.compile(Self.plan("name != nil", output: .dictionaries(grouped)), shape: grouped)
        else {
            Issue.record("grouping by the marked column must run in memory")
            return
        }
    }
}
