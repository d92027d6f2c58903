import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// The functions of Apple's Core Data that its files' triggers call.
@Suite struct SQLiteAppleFunctionsTests {
    func connection(in folder: TemporaryFolder) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(url: folder.file("Apple.sqlite"), mode: .create)
        try connection.execute("CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, ZPAGESCOUNT INTEGER, ZSTAMP TIMESTAMP)")
        try connection.execute("CREATE TABLE ZPAGE (Z_PK INTEGER PRIMARY KEY, ZBOOK INTEGER)")
        return connection
    }

    /// A trigger written as Apple writes derived-attribute triggers runs, and its update lands.
    @Test func derivedAttributeTriggersRun() throws {
        let folder = try TemporaryFolder()
        let connection = try connection(in: folder)
        try connection.execute(
            "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT AFTER INSERT ON ZPAGE FOR EACH ROW "
                + "WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = IFNULL(ZPAGESCOUNT, 0) + 1, "
                + "ZSTAMP = NSCoreDataNow() WHERE Z_PK = NEW.ZBOOK; "
                + "SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', 1, Z_PK, 'pagesCount', ZPAGESCOUNT) "
                + "FROM ZBOOK WHERE Z_PK = NEW.ZBOOK; END")
        try connection.run("INSERT INTO ZBOOK (Z_PK) VALUES (1)")
        let before = Date().timeIntervalSinceReferenceDate
        try connection.run("INSERT INTO ZPAGE (Z_PK, ZBOOK) VALUES (1, 1)")
        try connection.run("INSERT INTO ZPAGE (Z_PK, ZBOOK) VALUES (2, 1)")
        let statement = try connection.statement("SELECT ZPAGESCOUNT, ZSTAMP FROM ZBOOK WHERE Z_PK = 1")
        defer { statement.reset() }
        #expect(try statement.step())
        #expect(statement.int64(at: 0) == 2)
        #expect(statement.double(at: 1) >= before - 1 && statement.double(at: 1) <= Date().timeIntervalSinceReferenceDate + 1)
    }

    /// The notifications answer NULL, whatever their arguments.
    @Test(arguments: SQLiteAppleFunctionsTestsNames.notifications)
    func notificationsAnswerNull(_ name: String) throws {
        let folder = try TemporaryFolder()
        let connection = try connection(in: folder)
        let statement = try connection.statement("SELECT \(name)('ZBOOK', 1, 2, 'pagesCount', 3) IS NULL")
        defer { statement.reset() }
        #expect(try statement.step() && statement.int64(at: 0) == 1)
    }

    /// A trigger that calls an Apple-only function makes the write fail, naming the function,
    /// and the row is not written.
    @Test func appleOnlyFunctionsFailClearly() throws {
        let folder = try TemporaryFolder()
        let connection = try connection(in: folder)
        try connection.execute(
            "CREATE TRIGGER Z_HISTORY AFTER DELETE ON ZPAGE FOR EACH ROW BEGIN "
                + "SELECT NSPersistentHistoryBatchDeleteUpdateTrigger(OLD.Z_PK); END")
        try connection.run("INSERT INTO ZPAGE (Z_PK, ZBOOK) VALUES (1, NULL)")
        let error = try #require(throws: NSError.self) {
            try connection.transaction { try connection.run("DELETE FROM ZPAGE WHERE Z_PK = 1") }
        }
        #expect(error.localizedDescription.contains("NSPersistentHistoryBatchDeleteUpdateTrigger"))
        #expect(error.localizedDescription.contains("NSReadOnlyPersistentStoreOption"))
        #expect(try connection.rowCount(table: "ZPAGE") == 1)
    }
}

enum SQLiteAppleFunctionsTestsNames {
    static let notifications = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataTriggerUpdateAffectedObjectValue",
    ]
}
