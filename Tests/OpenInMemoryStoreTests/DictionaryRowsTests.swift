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
