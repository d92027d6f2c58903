@testable import OpenPredicate
import Testing

/// Malformed and hostile input: errors, positions, limits and the Apple-style termination.
@Suite("Semantics: bad input")
struct BadInputTests {
    /// The NSError thrown for `format`, checked for domain, code and message shape.
    static func parseError(_ format: String, args: [Any] = [], expression: Bool = false,
                           sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        do {
            if expression {
                _ = try NSExpression(validatingFormat: format, argumentArray: args)
            } else {
                _ = try NSPredicate(validatingFormat: format, argumentArray: args)
            }
            Issue.record("\(format.prefix(60)) parsed", sourceLocation: sourceLocation)
            return nil
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
            #expect(error.code == NSFormattingError, sourceLocation: sourceLocation)
            #expect(error.localizedDescription.hasPrefix("Unable to parse the format string \""), sourceLocation: sourceLocation)
            return error
        }
    }

    @Test("errors name the line and column", arguments: [
        ("name ==", false, 8),           // end of input
        ("name == 'abc", false, 9),      // the unterminated string starts at its quote
        ("(a == 1", false, 8),           // missing ')' at the end
        ("a == {1, 2", false, 11),       // missing '}' at the end
        ("foo:(1)", true, 1),            // unknown function, at its name
        ("sum:()", true, 1),             // sum: needs an argument, at its name
        ("a == %@", false, 6),           // no argument for %@
        ("a == 1 b", false, 8),          // trailing garbage
        ("a ==\nb ==", false, 3),        // `a == b`, then an unexpected `==` on line 2 (checked below)
    ])
    func errorPositions(format: String, expression: Bool, column: Int) throws {
        let error = try #require(Self.parseError(format, expression: expression))
        if format.contains("\n") {
            #expect(error.localizedDescription.contains("line 2, column \(column)"), "\(error.localizedDescription)")
        } else {
            #expect(error.localizedDescription.contains("line 1, column \(column)"), "\(error.localizedDescription)")
            #expect(error.localizedDescription.contains("\"\(format)\""))
        }
    }

    @Test("more malformed strings throw", arguments: [
        "", "   ", "a == ", "== 1", "a === 1", "a == 1 AND", "a == 1 OR OR b == 2", "NOT", "(", ")", "a == )",
        "a[ == 1", "a == {1,,2}", "SUBQUERY(a, x, x == 1).@count > 0", "a BETWEEN", "a == 'x' 'y'", "a ==[z] 'x'",
        "$ == 1", "a. == 1", "a == 1.2.3", "TERNARY(a, b) == 1", "CAST(1) == 1", "a == %", "a == %@ %@",
    ])
    func malformed(format: String) {
        _ = Self.parseError(format, args: format.contains("%@") ? ["x"] : [])
    }

    // Nesting 10^6 deep must throw (depth limit), not overflow the stack. Run in a child process
    // (an exit test) so a crash fails this test instead of killing the whole run. (Not timed:
    // tests never time anything; the benchmarks measure parsing.)
    @Test func deeplyNestedInputThrowsWithoutCrashing() async {
        await #expect(processExitsWith: .success) {
            let inputs = [
                String(repeating: "(", count: 1_000_000) + "a == 1" + String(repeating: ")", count: 1_000_000),
                String(repeating: "(", count: 1_000_000),
                String(repeating: "NOT ", count: 1_000_000) + "a == 1",
                "a == " + String(repeating: "-", count: 1_000_000) + "1",
                "a == " + String(repeating: "{", count: 1_000_000),
            ]
            for input in inputs {
                do {
                    _ = try NSPredicate(validatingFormat: input, argumentArray: nil)
                    exit(3) // parsed: a depth limit is missing
                } catch let error as NSError {
                    if error.domain != NSCocoaErrorDomain || error.code != NSFormattingError { exit(4) }
                }
            }
        }
    }

    // Nesting inside the limit (but deeper than a few levels) parses and evaluates.
    @Test func moderatelyNestedInputParses() async {
        await #expect(processExitsWith: .success) {
            for depth in [9, 100, 400] {
                let nested = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
                guard let predicate = try? NSPredicate(validatingFormat: nested, argumentArray: nil) else { exit(3) }
                if !predicate.evaluate(with: ["a": 1]) || predicate.evaluate(with: ["a": 2]) { exit(4) }
            }
            let brackets = "a" + String(repeating: "[0]", count: 20) + " == 1"
            guard (try? NSPredicate(validatingFormat: brackets, argumentArray: nil)) != nil else { exit(5) }
        }
    }

    // A 10 MB string literal parses and compares correctly.
    @Test func hugeStringLiteral() throws {
        let big = String(repeating: "x", count: 10_000_000)
        let literal = try semanticsPredicate("SELF == '\(big)'")
        #expect(literal.evaluate(with: big))
        #expect(!literal.evaluate(with: big + "y"))
        let argument = try semanticsPredicate("SELF == %@", [big])
        #expect(argument.evaluate(with: big))
        #expect(!argument.evaluate(with: String(big.dropLast())))
        #expect(literal.isEqual(argument))
    }

    // A 1 MB chain of ANDs parses or throws, never crashes.
    @Test func hugeConjunction() {
        let count = 1_000_000 / 11
        let format = String(repeating: "a == 1 AND ", count: count) + "a == 1"
        if let predicate = try? NSPredicate(validatingFormat: format, argumentArray: nil) {
            #expect(predicate.evaluate(with: ["a": 1]))
            #expect(!predicate.evaluate(with: ["a": 2]))
            #expect(predicate.predicateFormat.count == format.count)
        }
        // The dangling AND variant throws.
        _ = Self.parseError(String(repeating: "a == 1 AND ", count: count))
    }

    // A format that is too long for the limit throws rather than allocating.
    @Test func arguments() {
        // Too few arguments and a %K with a non-string.
        _ = Self.parseError("%K == 1", args: [1])
        _ = Self.parseError("%K == %@", args: ["a"])
    }

    // The non-throwing initializer stops the process with Apple's message.
    @Test func nonThrowingInitializerTerminates() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = NSPredicate(format: "a ==")
        }
        if let result {
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: 'Unable to parse the format string"), "\(stderr)")
        }
        await #expect(processExitsWith: .failure) {
            _ = NSExpression(format: "a +")
        }
    }

    // Row 101: wrong-type evaluation is false (documented choice, see PredicateCompiler).
    @Test func wrongTypeEvaluationIsFalse() throws {
        #expect(try semanticsEval("SELF.foo <= 2", on: ["foo": "2"]) == false)
        #expect(try semanticsEval("SELF.foo BEGINSWITH 'a'", on: ["foo": 2]) == false)
        #expect(try semanticsEval("SELF.foo BETWEEN {1, 3}", on: ["foo": "2"]) == false)
        #expect(try semanticsEval("SELF.foo + 1 == 3", on: ["foo": "2"]) == false)
    }
}
