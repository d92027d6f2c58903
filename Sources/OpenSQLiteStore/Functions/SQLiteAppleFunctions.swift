import CSQLite
import Foundation
import OpenSQLStore

/// The SQL functions of Apple's Core Data that its store files call from their own triggers,
/// registered on every connection so that those files can be written here too.
///
/// Apple's SQLite store keeps derived attributes (`NSDerivedAttributeDescription`) up to date
/// with triggers it writes into the file, for example in a store whose `Book.pagesCount` is
/// derived from `pages.@count`:
///
/// ```sql
/// CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT AFTER INSERT ON ZPAGE FOR EACH ROW
///   WHEN (NEW.ZBOOK NOT NULL) BEGIN
///   UPDATE ZBOOK SET ZPAGESCOUNT = IFNULL(ZPAGESCOUNT, 0) + 1 WHERE Z_PK = NEW.ZBOOK;
///   SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT)
///     FROM ZBOOK WHERE Z_PK = NEW.ZBOOK; END
/// ```
///
/// Without a function of that name, SQLite refuses every insert into `ZPAGE`. What is provided:
///
/// | function | here |
/// |---|---|
/// | `NSCoreDataDATriggerUpdatedAffectedObjectValue(table, Z_ENT, Z_PK, property, value)` | answers NULL |
/// | `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue(…)` (same arguments) | answers NULL |
/// | `NSCoreDataTriggerUpdateAffectedObjectValue(…)` (same arguments) | answers NULL |
/// | `NSCoreDataNow()` | the current time in seconds since 2001-01-01 (Apple's `TIMESTAMP`) |
/// | `NSPersistentHistoryBatchDeleteUpdateTrigger(…)`, `NSCoreDataDATriggerMergeableString(…)` | fail with a message that names the function |
///
/// On Apple's platforms the first three tell the context which objects a trigger changed. Their
/// result is selected and thrown away by the trigger, so answering NULL keeps the file exactly as
/// Apple's Core Data would leave it; the changed values (a `pagesCount` raised by one) are in the
/// file, and objects read after the save see them.
///
/// **Differences from Apple:** an object already in a context keeps the derived value it had
/// until it is refreshed (`refresh(_:mergeChanges:)`) or refetched with
/// `shouldRefreshRefetchedObjects`. Persistent-history batch deletes and mergeable strings are
/// Apple-only: a write that fires such a trigger fails, is rolled back, and says which function
/// is missing.
enum SQLiteAppleFunctions {
    /// The notifications Apple's triggers send (5 arguments each); answered with NULL.
    static let notifications = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataTriggerUpdateAffectedObjectValue",
    ]

    /// Functions whose meaning is Apple's own: calling one fails with a clear message.
    static let unavailable = ["NSPersistentHistoryBatchDeleteUpdateTrigger", "NSCoreDataDATriggerMergeableString"]

    /// Registers the functions on a connection; returns SQLite's result code.
    static func register(on handle: OpaquePointer) -> Int32 {
        var result = sqlite3_create_function_v2(handle, "NSCoreDataNow", 0, SQLITE_UTF8, nil, nowFunction, nil, nil, nil)
        for name in notifications where result == SQLITE_OK {
            result = sqlite3_create_function_v2(
                handle, name, 5, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nullFunction, nil, nil, nil)
        }
        for (index, name) in unavailable.enumerated() where result == SQLITE_OK {
            let userData = UnsafeMutableRawPointer(bitPattern: UInt(index + 1))
            result = sqlite3_create_function_v2(handle, name, -1, SQLITE_UTF8, userData, unavailableFunction, nil, nil, nil)
        }
        return result
    }

    /// The message of a call to an Apple-only function.
    static func unavailableMessage(_ name: String) -> String {
        "the store's triggers call \(name), a function of Apple's Core Data that this store cannot provide; "
            + "open the store with NSReadOnlyPersistentStoreOption to read it"
    }
}

private func nullFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    sqlite3_result_null(context)
}

private func nowFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    sqlite3_result_double(context, Date().timeIntervalSinceReferenceDate)
}

private func unavailableFunction(context: OpaquePointer?, count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
    let index = Int(bitPattern: sqlite3_user_data(context)) - 1
    let names = SQLiteAppleFunctions.unavailable
    let name = names.indices.contains(index) ? names[index] : "an Apple-only function"
    sqlite3_result_error(context, SQLiteAppleFunctions.unavailableMessage(name), -1)
}
