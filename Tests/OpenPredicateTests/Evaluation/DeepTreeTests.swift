import Testing
@testable import OpenPredicate

@Suite struct DeepTreeTests {
    /// The deepest predicates the parser accepts go through their whole life — parse, print,
    /// re-parse, compare, copy, evaluate — on a 512 KiB secondary-thread stack, in a debug build.
    @Test func deepestPredicatesLiveOnASmallStack() {
        let depth = ParserLimits.maxNestingDepth
        let formats = [
            String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth),
            "a == " + String(repeating: "sum(", count: depth - 1) + "1" + String(repeating: ")", count: depth - 1),
            "a == 1" + String(repeating: " + 0", count: depth - 1),
            String(repeating: "NOT ", count: depth - 1) + "a == 1",
            String(repeating: "(a == 2 OR ", count: depth / 2) + "a == 1" + String(repeating: ")", count: depth / 2),
        ]
        let results = onSmallStackThread {
            formats.map { format -> String in
                do {
                    let predicate = try NSPredicate(validatingFormat: format)
                    let printed = predicate.description
                    let reparsed = try NSPredicate(validatingFormat: printed)
                    let copy = predicate.copy() as? NSObject
                    let matches = predicate.evaluate(with: ["a": 1])
                    return "\(reparsed.isEqual(predicate)) \(copy?.isEqual(predicate) == true) \(matches)"
                } catch {
                    return String(describing: error)
                }
            }
        }
        // depth - 1 NOTs of a true comparison: false when depth - 1 is odd.
        let notResult = (depth - 1) % 2 == 0
        #expect(results == [
            "true true true", "true true true", "true true true", "true true \(notResult)", "true true true",
        ])
    }

    @Test func depthCheckStopsAtTheLimit() throws {
        let shallow = try PredicateParser.parsePredicate("a == 1 AND (b == 2 OR c == 3)", arguments: [])
        #expect(!shallow.isDeeper(than: 3))
        #expect(shallow.isDeeper(than: 2))
        let expression = try PredicateParser.parseExpression("1 + 2 + 3", arguments: [])
        #expect(expression.isDeeper(than: 1))
        #expect(!expression.isDeeper(than: 2))
    }
}
