import Foundation
import OpenStoreCore
import Testing

/// `DictionaryRows`, the columnar form of dictionary results every store returns.
@Suite struct DictionaryRowsTests {
    @Test func rowsReadBackAsDictionaries() {
        var rows = DictionaryRows(columns: ["a", "b"])
        rows.appendRow()
        rows.set(.integer(1), column: 0)
        rows.set(.string("x"), column: 1)
        rows.appendRow()
        rows.set(.null, column: 0)
        rows.set(.string("y"), column: 1)
        rows.appendRow()
        #expect(rows.names == ["a", "b"])
        #expect(rows.count == 3)
        #expect(rows.values == [.integer(1), .string("x"), .null, .string("y"), .null, .null])
        #expect(Array(rows) == [["a": .integer(1), "b": .string("x")], ["b": .string("y")], [:]])
    }

    /// Columns of one name share a key: the last non-NULL value wins.
    @Test func sameNameSharesKey() {
        var rows = DictionaryRows(columns: ["a", "b", "a"])
        rows.appendRow()
        rows.set(.integer(1), column: 0)
        rows.set(.integer(2), column: 2)
        rows.appendRow()
        rows.set(.integer(3), column: 0)
        rows.set(.null, column: 2)
        #expect(rows.names == ["a", "b"])
        #expect(Array(rows) == [["a": .integer(2)], ["a": .integer(3)]])
    }

    /// No columns: rows still count (each an empty dictionary).
    @Test func noColumns() {
        var rows = DictionaryRows(columns: [])
        rows.appendRow()
        rows.appendRow()
        #expect(rows.count == 2)
        #expect(Array(rows) == [[:], [:]])
    }

    /// Made from dictionaries, and equal by their dictionaries whatever the key order.
    @Test func fromDictionariesAndEquality() {
        let dictionaries: [[String: StoreValue]] = [["b": .bool(true)], [:], ["a": .double(1.5), "b": .bool(false)]]
        let rows = DictionaryRows(columns: ["a", "b"], dictionaries: dictionaries)
        #expect(Array(rows) == dictionaries)
        #expect(rows == DictionaryRows(columns: ["b", "a"], dictionaries: dictionaries))
        #expect(rows != DictionaryRows(columns: ["a", "b"], dictionaries: Array(dictionaries.dropLast())))
        #expect(rows == [["b": .bool(true)], [:], ["a": .double(1.5), "b": .bool(false)]])
    }
}

/// `DictionaryResultBuilder`: the `NSDictionary` results stores make from stored values.
@Suite struct DictionaryResultBuilderTests {
    /// A stand-in for an object ID: the row's key.
    final class RowID: NSObject {
        let key: ObjectKey
        init(_ key: ObjectKey) { self.key = key }
    }

    static func builder(_ columns: [String]) -> DictionaryResultBuilder {
        DictionaryResultBuilder(columns: columns) { RowID($0) }
    }

    /// Common values become Foundation objects, NULLs are left out, and a to-one names its row.
    @Test func commonValuesBecomeFoundationObjects() throws {
        var builder = Self.builder(["name", "age", "score", "active", "born", "boss", "note"])
        builder.appendRow()
        builder.set(.string("Ann"), column: 0)
        builder.set(.integer(34), column: 1)
        builder.set(.double(2.5), column: 2)
        builder.set(.bool(true), column: 3)
        builder.set(.date(Date(timeIntervalSinceReferenceDate: 100)), column: 4)
        builder.set(.object(ObjectKey(entityID: 2, primaryKey: 7)), column: 5)
        builder.set(.null, column: 6)
        builder.endRow()
        let row = try #require(builder.results.first)
        #expect(builder.results.count == 1)
        #expect(row.count == 6)
        #expect(row["name"] as? NSString == "Ann")
        #expect((row["age"] as? NSNumber)?.intValue == 34)
        #expect((row["score"] as? NSNumber)?.doubleValue == 2.5)
        #expect((row["active"] as? NSNumber)?.boolValue == true)
        #expect((row["born"] as? NSDate)?.timeIntervalSinceReferenceDate == 100)
        #expect((row["boss"] as? RowID)?.key == ObjectKey(entityID: 2, primaryKey: 7))
        #expect(row["note"] == nil)
        // The keys are plain strings to the reader.
        #expect(Set(row.allKeys.compactMap { $0 as? String }) == ["name", "age", "score", "active", "born", "boss"])
    }

    /// A row with a value that has no common Foundation object keeps every value, and the
    /// builder is empty for the next row.
    @Test func mixedRowsKeepEveryValue() throws {
        var builder = Self.builder(["price", "name", "members"])
        builder.appendRow()
        builder.set(.decimal(Decimal(string: "1.25") ?? 0), column: 0)
        builder.set(.string("Box"), column: 1)
        builder.set(.objects([ObjectKey(entityID: 1, primaryKey: 1), ObjectKey(entityID: 1, primaryKey: 2)]), column: 2)
        builder.endRow()
        builder.appendRow()
        builder.set(.string("Bag"), column: 1)
        builder.endRow()
        let first = builder.results[0]
        #expect(first.count == 3)
        #expect((first["price"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "1.25"))
        #expect(first["name"] as? String == "Box")
        #expect(((first["members"] as? [Any])?.compactMap { ($0 as? RowID)?.key.primaryKey }) == [1, 2])
        #expect(builder.results[1].count == 1)
        #expect(builder.results[1]["name"] as? String == "Bag")
    }

    /// Columns of one name share a key: the last non-NULL value wins, as in `DictionaryRows`,
    /// whether it has a common Foundation object or not.
    @Test func sameNameSharesKey() throws {
        var builder = Self.builder(["a", "b", "a"])
        builder.appendRow()
        builder.set(.integer(1), column: 0)
        builder.set(.integer(2), column: 2)
        builder.endRow()
        builder.appendRow()
        builder.set(.integer(3), column: 0)
        builder.set(.null, column: 2)
        builder.endRow()
        builder.appendRow()
        builder.set(.decimal(5), column: 0)
        builder.set(.string("s"), column: 2)
        builder.endRow()
        builder.appendRow()
        builder.set(.string("s"), column: 0)
        builder.set(.decimal(5), column: 2)
        builder.endRow()
        let values = builder.results.map { row in row["a"].map { "\($0)" } }
        #expect(builder.results.map(\.count) == [1, 1, 1, 1])
        #expect(values == ["2", "3", "s", "5"])
    }

    /// `DictionaryRows` converted with the builder give the same dictionaries.
    @Test func rowsConvertThroughTheBuilder() {
        var rows = DictionaryRows(columns: ["a", "b", "a"])
        rows.appendRow()
        rows.set(.integer(1), column: 0)
        rows.set(.string("x"), column: 1)
        rows.appendRow()
        rows.set(.string("y"), column: 1)
        rows.set(.integer(4), column: 2)
        let results = rows.foundationResults { RowID($0) }
        #expect(results.count == 2)
        #expect(results[0] == ["a": 1, "b": "x"] as NSDictionary)
        #expect(results[1] == ["a": 4, "b": "y"] as NSDictionary)
    }
}
