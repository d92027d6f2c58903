import Foundation
import Testing
@testable import OpenPredicate

/// A plain Swift type, read through `Mirror`.
private struct Row {
    let name: Int
    let other: Int
}

/// A type read through `KeyValueCodable`.
private final class Team: KeyValueCodable {
    let name: String
    let victories: Int
    let tiebreakerPoints: Int

    init(_ name: String, _ victories: Int, _ tiebreakerPoints: Int) {
        self.name = name
        self.victories = victories
        self.tiebreakerPoints = tiebreakerPoints
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "victories": victories
        case "tiebreakerPoints": tiebreakerPoints
        default: nil
        }
    }
}

@Suite struct NSSortDescriptorTests {
    // MARK: Construction and accessors

    @Test func keyInitUsesCompareSelector() {
        let descriptor = NSSortDescriptor(key: "name", ascending: true)
        #expect(descriptor.key == "name")
        #expect(descriptor.ascending)
        #expect(descriptor.selector == "compare:")
        #expect(descriptor is NSSortDescriptor)
        descriptor.allowEvaluation()
    }

    @Test func selectorInitKeepsSelector() {
        let descriptor = NSSortDescriptor(key: "title", ascending: false, selector: "localizedStandardCompare:")
        #expect(descriptor.key == "title")
        #expect(!descriptor.ascending)
        #expect(descriptor.selector == "localizedStandardCompare:")
        #expect(NSSortDescriptor(key: "title", ascending: true, selector: nil).selector == "compare:")
    }

    @Test func reversedKeepsKeyAndSelector() throws {
        let descriptor = NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")
        let reversed = try #require(descriptor.reversedSortDescriptor as? NSSortDescriptor)
        #expect(reversed.key == "name")
        #expect(reversed.selector == "caseInsensitiveCompare:")
        #expect(!reversed.ascending)
        let twice = try #require(reversed.reversedSortDescriptor as? NSSortDescriptor)
        #expect(twice == descriptor)
    }

    @Test func descriptionMatchesApple() {
        #expect(NSSortDescriptor(key: "name", ascending: true).description == "(name, ascending, compare:)")
        #expect(NSSortDescriptor(key: "age", ascending: false, selector: "localizedCompare:").description
            == "(age, descending, localizedCompare:)")
    }

    @Test func unsupportedSelectorTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = NSSortDescriptor(key: "name", ascending: true, selector: "lengthCompare:")
        }
    }

    // MARK: Equality and copying

    @Test func equalityAndHash() {
        let a = NSSortDescriptor(key: "name", ascending: true)
        let b = NSSortDescriptor(key: "name", ascending: true, selector: "compare:")
        #expect(a == b)
        #expect(a.isEqual(b))
        #expect(a.hash == b.hash)
        #expect(a != NSSortDescriptor(key: "name", ascending: false))
        #expect(a != NSSortDescriptor(key: "other", ascending: true))
        #expect(a != NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:"))
        #expect(a != NSSortDescriptor(key: nil, ascending: true))
        #expect(Set([a, b]).count == 1)
    }

    @Test func copyIsEqual() throws {
        let descriptor = NSSortDescriptor(key: "name", ascending: false, selector: "localizedCompare:")
        let copy = try #require(descriptor.copy() as? NSSortDescriptor)
        #expect(copy == descriptor)
        #expect(copy.key == "name")
        #expect(copy.selector == "localizedCompare:")
        #expect(!copy.ascending)

        let comparatorBased = NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame }
        let comparatorCopy = try #require(comparatorBased.copy() as? NSSortDescriptor)
        #expect(comparatorCopy == comparatorBased)
        #expect(comparatorBased != NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame })
        #expect(comparatorBased.selector == nil)
    }

    // MARK: compare(_:to:)

    @Test func compareAscendingAndDescending() {
        let ascending = NSSortDescriptor(key: nil, ascending: true)
        #expect(ascending.compare("a", to: "b") == .orderedAscending)
        #expect(ascending.compare("b", to: "a") == .orderedDescending)
        #expect(ascending.compare("a", to: "a") == .orderedSame)

        let descending = NSSortDescriptor(key: nil, ascending: false)
        #expect(descending.compare("a", to: "b") == .orderedDescending)
        #expect(descending.compare("b", to: "a") == .orderedAscending)
        #expect(descending.compare("a", to: "a") == .orderedSame)
    }

    @Test func compareReadsKey() {
        let descriptor = NSSortDescriptor(key: "name", ascending: true)
        #expect(descriptor.compare(["name": "a"], to: ["name": "b"]) == .orderedAscending)
        #expect(descriptor.compare(Row(name: 2, other: 0), to: Row(name: 1, other: 9)) == .orderedDescending)
    }

    @Test func caseInsensitiveCompare() {
        let descriptor = NSSortDescriptor(key: nil, ascending: true, selector: "caseInsensitiveCompare:")
        #expect(descriptor.compare("ABC", to: "abc") == .orderedSame)
        #expect(descriptor.compare("abc", to: "abd") == .orderedAscending)
        #expect(descriptor.compare("ABD", to: "abc") == .orderedDescending)
        // compare: is case-sensitive: "B" (0x42) < "a" (0x61).
        #expect(NSSortDescriptor(key: nil, ascending: true).compare("a", to: "B") == .orderedDescending)
    }

    @Test func localizedCompares() {
        let localized = NSSortDescriptor(key: nil, ascending: true, selector: "localizedCompare:")
        #expect(localized.compare("a", to: "B") == .orderedAscending)
        #expect(localized.compare("é", to: "f") == .orderedAscending)
        let caseInsensitive = NSSortDescriptor(key: nil, ascending: true, selector: "localizedCaseInsensitiveCompare:")
        #expect(caseInsensitive.compare("Resume", to: "resume") == .orderedSame)
        #expect(caseInsensitive.compare("a", to: "B") == .orderedAscending)
    }

    @Test func comparatorPropertyUsesSelector() {
        let descriptor = NSSortDescriptor(key: "name", ascending: false, selector: "caseInsensitiveCompare:")
        // The comparator compares values, ascending, whatever the descriptor's direction.
        #expect(descriptor.comparator("abc", "ABD") == .orderedAscending)
        #expect(descriptor.comparator("ABC", "abc") == .orderedSame)
    }

    // MARK: Sorting

    @Test func nilKeySortsObjectsThemselves() {
        let letters = ["B", "D", "F", "E", "A", "C"]
        #expect(letters.sorted(using: [NSSortDescriptor(key: nil, ascending: true)]) == ["A", "B", "C", "D", "E", "F"])
        #expect(letters.sorted(using: [NSSortDescriptor(key: nil, ascending: false)]) == ["F", "E", "D", "C", "B", "A"])
    }

    @Test func secondDescriptorBreaksTies() {
        let d1 = Row(name: 1, other: 1)
        let d2 = Row(name: 1, other: 2)
        let d3 = Row(name: 2, other: 1)
        let d4 = Row(name: 2, other: 2)
        let sorted = [d4, d2, d3, d1].sorted(using: [
            NSSortDescriptor(key: "other", ascending: true),
            NSSortDescriptor(key: "name", ascending: true),
        ])
        #expect(sorted.map { [$0.name, $0.other] } == [[1, 1], [2, 1], [1, 2], [2, 2]])
    }

    @Test func multipleDescendingKeysAreStable() {
        let teams = [Team("A", 3, 0), Team("B", 1, 10), Team("C", 1, 10), Team("D", 1, 15)]
        let descriptors = [
            NSSortDescriptor(key: "victories", ascending: false),
            NSSortDescriptor(key: "tiebreakerPoints", ascending: false),
        ]
        #expect(teams.sorted(using: descriptors).map(\.name) == ["A", "D", "B", "C"])
        // Ties keep input order.
        #expect(teams.reversed().sorted(using: descriptors).map(\.name) == ["A", "D", "C", "B"])
    }

    @Test func comparatorDescriptor() {
        let canonical = ["Velma", "Daphne", "Scooby"]
        let rank = { (value: Any) in canonical.firstIndex(of: value as? String ?? "") ?? canonical.count }
        let descriptor = NSSortDescriptor(key: "name", ascending: true) { a, b in
            rank(a) < rank(b) ? .orderedAscending : (rank(a) > rank(b) ? .orderedDescending : .orderedSame)
        }
        let rows: [[String: Any]] = [["name": "Scooby"], ["name": "Daphne"], ["name": "Velma"]]
        #expect(descriptor.compare(["name": "Velma"], to: ["name": "Daphne"]) == .orderedAscending)
        #expect(rows.sorted(using: [descriptor]).compactMap { $0["name"] as? String } == canonical)
        let reversed = rows.sorted(using: [descriptor.reversedSortDescriptor as? NSSortDescriptor].compactMap { $0 })
        #expect(reversed.compactMap { $0["name"] as? String } == canonical.reversed())
    }

    @Test func localizedStandardCompareIsNumeric() {
        let descriptor = NSSortDescriptor(key: nil, ascending: true, selector: "localizedStandardCompare:")
        #expect(["file10", "File2", "file1"].sorted(using: [descriptor]) == ["file1", "File2", "file10"])
        #expect(descriptor.compare("file2", to: "file10") == .orderedAscending)
    }

    @Test func nilSortsFirstAscendingAndLastDescending() {
        let rows: [[String: Any]] = [["age": 30], ["age": NSNull()], ["age": 10], [:]]
        let ascending = rows.sorted(using: [NSSortDescriptor(key: "age", ascending: true)])
        #expect(ascending.map { $0["age"] as? Int } == [nil, nil, 10, 30])
        #expect(ascending[0]["age"] is NSNull) // Two nils are the same: input order kept.
        let descending = rows.sorted(using: [NSSortDescriptor(key: "age", ascending: false)])
        #expect(descending.map { $0["age"] as? Int } == [30, 10, nil, nil])

        let optionals: [String?] = ["b", nil, "a"]
        #expect(optionals.sorted(using: [NSSortDescriptor(key: nil, ascending: true)]) == [nil, "a", "b"])
        let descriptor = NSSortDescriptor(key: nil, ascending: true)
        #expect(descriptor.compare(NSNull(), to: NSNull()) == .orderedSame)
        #expect(descriptor.compare(NSNull(), to: 0) == .orderedAscending)
    }

    @Test func mixedNumberWidthsCompareByValue() {
        let rows: [[String: Any]] = [["v": 3], ["v": 2.5], ["v": Int8(2)], ["v": NSNumber(value: 1.5)]]
        let sorted = rows.sorted(using: [NSSortDescriptor(key: "v", ascending: true)])
        #expect(sorted.map { ValueSemantics.number($0["v"] ?? 0)?.doubleValue } == [1.5, 2, 2.5, 3])
    }

    @Test func keyPathThroughDictionaries() {
        let people: [[String: Any]] = [
            ["name": "Ann", "address": ["city": "Paris"]],
            ["name": "Bob", "address": ["city": "Berlin"]],
            ["name": "Cid", "address": ["city": "Oslo"] as NSDictionary],
        ]
        let sorted = people.sorted(using: [NSSortDescriptor(key: "address.city", ascending: true)])
        #expect(sorted.compactMap { $0["name"] as? String } == ["Bob", "Cid", "Ann"])
    }

    @Test func mixedTypesStillSortTotally() {
        let values: [Any] = ["b", 2, "a", 1]
        let sorted = values.sorted(using: [NSSortDescriptor(key: nil, ascending: true)])
        // Numbers and strings have no common order; they group by type name, each group in order.
        #expect(sorted.map { String(describing: $0) } == ["1", "2", "a", "b"])
    }

    @Test func arraySortInPlace() {
        var letters = ["c", "a", "b"]
        letters.sort(using: [NSSortDescriptor(key: nil, ascending: true)])
        #expect(letters == ["a", "b", "c"])
        letters.sort(using: [])
        #expect(letters == ["a", "b", "c"])
    }

    @Test func worksWithCorelibsKeyPathDescriptors() {
        let rows = [Row(name: 2, other: 1), Row(name: 1, other: 1), Row(name: 1, other: 0)]
        let sorted = rows.sorted(using: [
            NSSortDescriptor(keyPath: \Row.name, ascending: true),
            NSSortDescriptor(key: "other", ascending: true),
        ])
        #expect(sorted.map { [$0.name, $0.other] } == [[1, 0], [1, 1], [2, 1]])
    }

    @Test func nsArraySortedArrayUsesOurDescriptors() {
        let array = NSArray(array: ["file10", "File2", "file1"])
        let descriptor = NSSortDescriptor(key: nil, ascending: true, selector: "localizedStandardCompare:")
        #expect(array.sortedArray(using: [descriptor]).compactMap { $0 as? String } == ["file1", "File2", "file10"])

        let mutable = NSMutableArray(array: [Team("A", 1, 0), Team("B", 3, 0), Team("C", 2, 0)])
        mutable.sort(using: [NSSortDescriptor(key: "victories", ascending: false)])
        #expect(mutable.compactMap { ($0 as? Team)?.name } == ["B", "C", "A"])

        let numbers = NSMutableArray(array: [3, 1, 2])
        numbers.sort(using: [NSSortDescriptor(key: nil, ascending: false)])
        #expect(numbers.compactMap { $0 as? Int } == [3, 2, 1])
    }
}
