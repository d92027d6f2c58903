import Foundation
import OpenSQLStore
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
}
