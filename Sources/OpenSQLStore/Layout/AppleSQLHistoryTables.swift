import OpenPredicate
import OpenStoreCore

/// Persistent history in Apple's layout: `ATRANSACTION`, `ACHANGE` and `ATRANSACTIONSTRING`,
/// registered in `Z_PRIMARYKEY` as entities 16002, 16001 and 16003 (whose `Z_MAX` hands out
/// their primary keys, as for the model's entities).
///
/// What the layout holds, as observed in Apple's files (`SampleModel2_V1.sqlite`, Core Data 1344)
/// and, for updates and deletes, as reported of Apple's stores by others (that file has only
/// inserts):
/// - `ATRANSACTION`: one row per save; `Z_PK` is the transaction number (the token's), `Z_ENT`
///   16002, `Z_OPT` NULL, `ZTIMESTAMP` seconds since 2001, and the author, bundle ID, context
///   name and process ID as ids into `ATRANSACTIONSTRING` (`ZAUTHORTS`, `ZBUNDLEIDTS`,
///   `ZCONTEXTNAMETS`, `ZPROCESSIDTS`). Their `VARCHAR` twins (`ZAUTHOR`, …) and `ZQUERYGEN` are
///   NULL in Apple's files and are written NULL here; reading falls back to a twin when its id
///   is NULL.
/// - `ATRANSACTIONSTRING`: each distinct string once (`ZNAME`, unique index).
/// - `ACHANGE`: one row per changed object: `ZCHANGETYPE` (0 insert, 1 update, 2 delete),
///   `ZENTITY` (the object's `Z_ENT`, a sub-entity's own number), `ZENTITYPK` (its `Z_PK`),
///   `ZTRANSACTIONID`, and for an update `ZCOLUMNS`, a bitmap of the properties the save wrote:
///   bit `n`, counted from the most significant bit of the first byte, stands for the `n`th
///   non-transient property of the object's entity sorted by name
///   (`EntitySchema.historySlots`); NULL for inserts and deletes. A delete's tombstone is in
///   `ZTOMBSTONE0`, `ZTOMBSTONE1`, …: the `n`th column holds the value of the entity's `n`th
///   attribute marked `preservesValueInHistoryOnDeletion` (in the same name order), stored as
///   the attribute's own column stores it.
///
/// Every statement that reads or writes history is plain SQL (`INSERT`/`SELECT`/`DELETE` with
/// `?` placeholders and the layout's identifiers, `LIMIT ?` only), so that another SQL store can
/// run the same text through its dialect. Only `createStatements` (DDL) is SQLite's.
package struct AppleSQLHistoryTables: Sendable {
    /// `Z_PRIMARYKEY` numbers of the history entities.
    package static let changeEntity = 16001
    package static let transactionEntity = 16002
    package static let stringEntity = 16003

    /// How many `ZTOMBSTONE<n>` columns `ACHANGE` has.
    package let tombstoneColumns: Int

    package init(tombstoneColumns: Int) {
        self.tombstoneColumns = tombstoneColumns
    }

    /// Apple's DDL for the history tables and their indexes (`SampleModel2_V1.sqlite`).
    package static let createStatements = [
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, "
            + "ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, "
            + "ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, "
            + "ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]
}

// MARK: - The statements

/// The statements of persistent history, plain SQL that any SQL store can run (see
/// `AppleSQLHistoryTables`).
package enum HistorySQL {
    package static let findString = "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?"
    package static let insertString = "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, ?, ?)"
    package static let allStrings = "SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING"
    package static let insertTransaction =
        "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP, "
        + "ZAUTHOR, ZBUNDLEID, ZCONTEXTNAME, ZPROCESSID, ZQUERYGEN) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// The `INSERT` of a change with `tombstones` tombstone columns.
    package static func insertChange(tombstones: Int) -> String {
        let extra = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        let marks = String(repeating: ", ?", count: tombstones)
        return "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra)) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?\(marks))"
    }
    package static let transactionColumns =
        "SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZAUTHOR, ZBUNDLEID, ZCONTEXTNAME, "
        + "ZPROCESSID FROM ATRANSACTION WHERE Z_PK > ? ORDER BY Z_PK"
    package static let transactions = transactionColumns
    package static let transactionsLimited = transactionColumns + " LIMIT ?"
    /// The changes of the transactions numbered in (`?`, `?`], with `tombstones` tombstone columns.
    package static func changes(tombstones: Int) -> String {
        let extra = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        return "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra) FROM ACHANGE "
            + "WHERE ZTRANSACTIONID > ? AND ZTRANSACTIONID <= ? ORDER BY Z_PK"
    }
    package static let deleteChanges = "DELETE FROM ACHANGE WHERE ZTRANSACTIONID < ?"
    package static let deleteTransactions = "DELETE FROM ATRANSACTION WHERE Z_PK < ?"
    package static let lastTransaction = "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"
}

// MARK: - The bitmap

/// `ACHANGE.ZCOLUMNS`: which properties an update wrote, one bit per entry of
/// `EntitySchema.historySlots`, most significant bit of the first byte first.
package enum HistoryColumnBitmap {
    /// An entity's history order, looked up once per save and entity.
    package struct Order {
        /// Position in the bitmap by slot.
        let positions: [Int: Int]
        let count: Int

        package init(entity: EntitySchema) {
            let order = entity.historySlots
            var positions: [Int: Int] = [:]
            for (position, slot) in order.enumerated() { positions[slot] = position }
            self.positions = positions
            count = order.count
        }
    }

    /// The bitmap of `slots` (slots of `entity`); nil when none is in the entity's history order.
    package static func encode(_ slots: [Int], entity: EntitySchema) -> Data? {
        encode(slots, order: Order(entity: entity))
    }

    /// The bitmap of `slots` in `order`; nil when none is in it.
    package static func encode(_ slots: [Int], order: Order) -> Data? {
        var bytes = [UInt8](repeating: 0, count: (order.count + 7) / 8)
        var any = false
        for slot in slots {
            guard let position = order.positions[slot] else { continue }
            bytes[position / 8] |= 0x80 >> UInt8(position % 8)
            any = true
        }
        return any ? Data(bytes) : nil
    }

    /// The slots a bitmap names, ascending; nil when it sets a bit past the entity's properties
    /// (a bitmap this schema cannot read).
    package static func decode(_ data: Data, entity: EntitySchema) -> [Int]? {
        let order = entity.historySlots
        var slots: [Int] = []
        for (index, byte) in data.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let position = index * 8 + bit
                guard position < order.count else { return nil }
                slots.append(order[position])
            }
        }
        return slots.sorted()
    }
}
