// A peer figure, with no goal: the fetch of every employee read through GRDB, the same rows
// into Swift values, on the same store file, against the same raw read.

import Foundation
import GRDB

/// An employee decoded by column index, as GRDB's fastest records are.
struct GRDBEmployee: FetchableRecord {
    let id: Int64
    let firstName: String
    let lastName: String
    let salary: Int64
    let age: Int64
    let hired: Date
    let department: Int64?

    init(row: Row) throws {
        id = row[0]
        firstName = row[1]
        lastName = row[2]
        salary = row[3]
        age = row[4]
        hired = Date(timeIntervalSinceReferenceDate: row[5])
        department = row[6]
    }
}

/// An employee decoded through `Codable`, columns named by the query (`hired` as the stored
/// seconds since 2001: GRDB would read a number as seconds since 1970).
struct CodableEmployee: Codable, FetchableRecord {
    let id: Int64
    let firstName: String
    let lastName: String
    let salary: Int64
    let age: Int64
    let hired: Double
    let department: Int64?
}

/// A `DatabaseQueue` on the store at `storePath`, as GRDB opens it (read-only, SQLite's default
/// threading mode, which GRDB does not let an app change); nil, reported, if it cannot open it.
func openGRDB(storePath: String) -> DatabaseQueue? {
    do {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: storePath, configuration: configuration)
    } catch {
        FileHandle.standardError.write("GRDB: \(error)\n".data(using: .utf8) ?? Data())
        return nil
    }
}

/// Every employee as a record decoded by column index, every attribute added up as the other
/// sides add them: the peer of the object lines.
func readGRDBRecords(_ queue: DatabaseQueue) throws -> Int {
    let records = try queue.read { db in try GRDBEmployee.fetchAll(db.cachedStatement(sql: allColumns)) }
    var total: Int64 = 0
    for record in records {
        total &+= record.salary &+ Int64(Int16(truncatingIfNeeded: record.age))
        total &+= Int64(record.firstName.utf8.count) &+ Int64(record.lastName.utf8.count)
        total &+= Int64(record.hired.timeIntervalSinceReferenceDate) &+ (record.department == nil ? 0 : 1)
    }
    return total == 0 ? 0 : records.count
}

/// Measures GRDB's records against `raw`.
func measureGRDB(_ queue: DatabaseQueue, raw: () -> Int) {
    measure("peer: GRDB FetchableRecord, init(row:) by column index, every attribute read", raw: raw) {
        try readGRDBRecords(queue)
    }
    let codableColumns =
        "SELECT Z_PK AS id, ZFIRSTNAME AS firstName, ZLASTNAME AS lastName, ZSALARY AS salary, ZAGE AS age, "
        + "ZHIRED AS hired, ZDEPARTMENT AS department FROM ZEMPLOYEE"
    measure("peer: GRDB Codable records, every attribute read", raw: raw) {
        let records = try queue.read { db in try CodableEmployee.fetchAll(db.cachedStatement(sql: codableColumns)) }
        var total: Int64 = 0
        for record in records {
            total &+= record.salary &+ record.age &+ Int64(record.firstName.utf8.count) &+ Int64(record.lastName.utf8.count)
            total &+= Int64(record.hired) &+ (record.department == nil ? 0 : 1)
        }
        return total == 0 ? 0 : records.count
    }
}
