import Foundation
import Testing
@testable import OpenPredicate

@Suite struct ValidatingEvaluationTests {
    @Test func unboundVariableIsAnErrorNamingIt() throws {
        let predicate = try NSPredicate(validatingFormat: "age > $MIN")
        // The Apple-named evaluation answers false, as documented…
        #expect(predicate.evaluate(with: ["age": 40]) == false)
        // …its twin says why.
        do {
            _ = try predicate.evaluate(validating: ["age": 40])
            Issue.record("expected an error for the unbound $MIN")
        } catch {
            #expect(error.localizedDescription == "Can't get value for 'MIN' in bindings")
            #expect((error as NSError).domain == NSCocoaErrorDomain)
        }
        #expect(try predicate.evaluate(validating: ["age": 40], substitutionVariables: ["MIN": 30]) == true)
        #expect(try predicate.evaluate(validating: ["age": 20], substitutionVariables: ["MIN": 30]) == false)
    }

    /// `MATCHES` with a pattern that is not a regular expression: Apple raises
    /// (`Can't do regex matching, reason: Can't open pattern U_REGEX_MISSING_CLOSE_PAREN …`);
    /// the twin throws an error naming the pattern, whether the pattern is a constant, a key
    /// path's value or under `ANY`, with or without options. Before, every object answered
    /// false, silently.
    @Test(arguments: [
        ("name MATCHES '('", ["name": "x"] as [String: Any]), ("name MATCHES[cd] '(' ", ["name": "x"]),
        ("name MATCHES pattern", ["name": "x", "pattern": "("]), ("ANY names MATCHES '('", ["names": ["a", "b"]]),
        ("ALL names MATCHES '[a-'", ["names": ["a"]]), ("NOT name MATCHES '*'", ["name": "x"]),
    ])
    func invalidRegularExpressionIsAnError(format: String, object: [String: Any]) throws {
        let predicate = try NSPredicate(validatingFormat: format)
        do {
            _ = try predicate.evaluate(validating: object)
            Issue.record("\(format): expected an error")
        } catch {
            #expect(error.localizedDescription.hasPrefix("Can't do regex matching, reason: Can't open pattern \""))
            #expect((error as NSError).domain == NSCocoaErrorDomain)
        }
    }

    /// Only a string tested against the pattern meets the error (as in SQL, where the function
    /// is called for text only); valid patterns are unaffected.
    @Test func invalidRegularExpressionNeedsAStringToTest() throws {
        #expect(try NSPredicate(validatingFormat: "name MATCHES '('").evaluate(validating: ["name": 3]) == false)
        #expect(try NSPredicate(validatingFormat: "name MATCHES '('").evaluate(validating: [String: Any]()) == false)
        #expect(try NSPredicate(validatingFormat: "name MATCHES '\\('").evaluate(validating: ["name": "("]) == true)
        #expect(NSPredicate(format: "name MATCHES '[a-z]+'").evaluate(with: ["name": "abc"]))
    }

    /// The non-throwing evaluation stops as Apple's raises (`NSInvalidArgumentException`).
    @Test func invalidRegularExpressionStopsEvaluateWith() async {
        await #expect(processExitsWith: .failure) {
            _ = NSPredicate(format: "name MATCHES '('").evaluate(with: ["name": "x"])
        }
        await #expect(processExitsWith: .failure) {
            _ = [["name": "x"]].filtered(using: NSPredicate(format: "name MATCHES '('"))
        }
    }

    @Test func setOperationOnANonCollectionIsAnError() throws {
        let expression = try NSExpression(validatingFormat: "a UNION b")
        #expect(expression.expressionValue(with: ["a": [1], "b": 2], context: nil) == nil)
        #expect(throws: (any Error).self) {
            try expression.expressionValue(validating: ["a": [1], "b": 2], context: nil)
        }
        let union = try expression.expressionValue(validating: ["a": [1], "b": [2, 1]], context: nil) as? [Any]
        #expect(union?.compactMap { $0 as? Int } == [1, 2])
    }

    @Test func variablesFromTheContextDictionary() throws {
        let expression = try NSExpression(validatingFormat: "$x * 2")
        #expect(throws: (any Error).self) { try expression.expressionValue(validating: nil, context: nil) }
        let context = NSMutableDictionary(dictionary: ["x": 21])
        #expect(try expression.expressionValue(validating: nil, context: context) as? Int == 42)
    }

    @Test func compoundsFromCorelibsInitializersReportToo() throws {
        let inner = try NSPredicate(validatingFormat: "name == $NAME")
        let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(value: true), inner])
        #expect(throws: (any Error).self) { try compound.evaluate(validating: ["name": "x"]) }
        #expect(try compound.evaluate(validating: ["name": "x"], substitutionVariables: ["NAME": "x"]) == true)
    }
}

@Suite struct ConstantPredicateTests {
    @Test func parsedConstantsPrintAsApplesDo() throws {
        let yes = try NSPredicate(validatingFormat: "TRUEPREDICATE")
        let no = try NSPredicate(validatingFormat: "FALSEPREDICATE")
        #expect(yes.description == "TRUEPREDICATE")
        #expect(no.description == "FALSEPREDICATE")
        #expect(yes.evaluate(with: nil) && !no.evaluate(with: nil))
        // Equal to corelibs' own constants, and not to each other.
        #expect(yes.isEqual(Foundation.NSPredicate(value: true)) && !yes.isEqual(no))
        let compound = try NSPredicate(validatingFormat: "a == 1 OR TRUEPREDICATE")
        #expect(compound.description == "a == 1 OR TRUEPREDICATE")
        #expect((compound as? NSCompoundPredicate)?.subpredicates.last.map { "\($0)" } == "TRUEPREDICATE")
    }
}
