import OpenSQLStore

extension NSPersistentStoreCoordinator {
    /// How much SQL the SQL stores of this process log, as Apple's
    /// `-com.apple.CoreData.SQLDebug N` launch argument sets it: 0 nothing, 1 statements, 2 also
    /// bound values, row counts and times, 3 also each row's values, 4 also SQLite's
    /// `EXPLAIN QUERY PLAN` (3 and 4: the SQLite store only). Messages go through swift-log,
    /// logger label `com.apple.CoreData.SQLDebug`, at `.info`. A store given a `Logger`
    /// (`NSPersistentStoreLoggerKey`) logs through it instead.
    ///
    /// **Default:** the launch argument `-com.apple.CoreData.SQLDebug N` if given, else the
    /// environment variable `OPENCOREDATA_SQLDEBUG`, else 0. Values are clamped to 0…4.
    ///
    /// **Differences from Apple:** an OpenCoreData addition (Apple reads the setting from the
    /// launch argument or user defaults only); the messages are OpenCoreData's own.
    public class var sqlDebugLevel: Int {
        get { SQLTrace.level }
        set { SQLTrace.level = min(max(newValue, 0), 4) }
    }
}
