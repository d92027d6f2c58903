import Foundation
import TestSupport
import Testing
@testable import OpenPredicate

/// Sort keys (`SortKey`, read once per object by the results controller) compare as the
/// descriptor compares the values they were read from: random mixed-type values from a fixed
/// seed go through both, for each selector and direction.
@Suite("Sorting: sort keys compare as their values do")
struct SortKeyEquivalenceTests {
    @Test func keysCompareAsTheirValues() {
        let descriptors = [
            NSSortDescriptor(key: "v", ascending: true), NSSortDescriptor(key: "v", ascending: false),
            NSSortDescriptor(key: "v", ascending: true, selector: "compare:"),
            NSSortDescriptor(key: "v", ascending: true, selector: "caseInsensitiveCompare:"),
            NSSortDescriptor(key: "v", ascending: false, selector: "localizedStandardCompare:"),
            NSSortDescriptor(key: "v", ascending: true) { a, b in
                "\(a)".count < "\(b)".count
                    ? .orderedAscending : ("\(a)".count > "\(b)".count ? .orderedDescending : .orderedSame)
            },
        ]
        var random = SplitMix64(seed: 0x50_47)
        var fast = 0
        for _ in 0..<20_000 {
            let a = FastPathEquivalenceTests.value(&random), b = FastPathEquivalenceTests.value(&random)
            let descriptor = descriptors[random.next(below: descriptors.count)]
            let expected = descriptor.compareValues(a, b)
            let got = descriptor.compareKeys(SortKey(a), SortKey(b))
            if got != expected {
                Issue.record("\(descriptor): \(String(describing: a)) vs \(String(describing: b)): \(got), expected \(expected)")
                return
            }
            if type(of: a as Any) == type(of: b as Any), a is String || a is Int { fast += 1 }
        }
        // The fast kinds were among the values compared.
        #expect(fast > 500)
    }

    @Test func aPlainKeyIsOneKeyWithoutDotsOrOperators() {
        #expect(NSSortDescriptor(key: "name", ascending: true).plainKey == "name")
        #expect(NSSortDescriptor(key: "department.name", ascending: true).plainKey == nil)
        #expect(NSSortDescriptor(key: "@count", ascending: true).plainKey == nil)
        #expect(NSSortDescriptor(key: nil, ascending: true).plainKey == nil)
    }
}
