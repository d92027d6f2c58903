import Foundation
import Testing
@testable import OpenPredicate

// MARK: Helpers

func synKey(_ path: String) -> ExpressionNode { .keyPath(KeyPathComponents(path)) }
func synConst(_ value: Any?) -> ExpressionNode { .constant(ConstantValue(value)) }
func synFn(_ name: String, _ arguments: ExpressionNode...) -> ExpressionNode { .function(name: name, arguments: arguments) }

func synCmp(_ left: ExpressionNode, _ op: ComparisonOperator, _ right: ExpressionNode,
         _ modifier: ComparisonModifier = .direct, _ options: ComparisonOptions = []) -> PredicateNode {
    .comparison(ComparisonNode(left: left, right: right, operatorType: op, modifier: modifier, options: options,
                               customSelector: nil))
}

func synParse(_ format: String, _ arguments: Any?...) throws -> PredicateNode {
    try PredicateParser.parsePredicate(format, arguments: arguments)
}

func synParseExpr(_ format: String, _ arguments: Any?...) throws -> ExpressionNode {
    try PredicateParser.parseExpression(format, arguments: arguments)
}

/// The error `format` throws as a predicate, or nil when it parses.
func synError(_ format: String, _ arguments: [Any?] = []) -> PredicateSyntaxError? {
    do {
        _ = try PredicateParser.parsePredicate(format, arguments: arguments)
        return nil
    } catch {
        return error
    }
}

/// The dynamic type name of a constant expression's value.
func synConstantType(_ expression: ExpressionNode) -> String {
    guard case .constant(let constant) = expression, let value = constant.value else { return "nil" }
    return String(describing: type(of: value))
}

// MARK: Operators

@Suite struct ParserOperatorTests {
    static let spellings: [(String, ComparisonOperator)] = [
        ("==", .equalTo), ("=", .equalTo), ("!=", .notEqualTo), ("<>", .notEqualTo),
        ("<", .lessThan), ("<=", .lessThanOrEqualTo), ("=<", .lessThanOrEqualTo),
        (">", .greaterThan), (">=", .greaterThanOrEqualTo), ("=>", .greaterThanOrEqualTo),
        ("MATCHES", .matches), ("like", .like), ("BeginsWith", .beginsWith), ("endswith", .endsWith),
        ("CONTAINS", .contains), ("in", .in), ("between", .between),
    ]

    @Test(arguments: spellings)
    func operatorSpelling(spelling: String, op: ComparisonOperator) throws {
        #expect(try synParse("a \(spelling) b") == synCmp(synKey("a"), op, synKey("b")))
        if spelling.first?.isLetter == false {
            #expect(try synParse("a\(spelling)b") == synCmp(synKey("a"), op, synKey("b")))
        }
    }

    static let options: [(String, ComparisonOptions)] = [
        ("[c]", .caseInsensitive), ("[d]", .diacriticInsensitive), ("[cd]", [.caseInsensitive, .diacriticInsensitive]),
        ("[dc]", [.caseInsensitive, .diacriticInsensitive]), ("[n]", .normalized), ("[l]", .localeSensitive),
        ("[cdnl]", [.caseInsensitive, .diacriticInsensitive, .normalized, .localeSensitive]),
    ]

    @Test(arguments: options)
    func optionLetters(spelling: String, options: ComparisonOptions) throws {
        #expect(try synParse("name LIKE\(spelling) 'x'") == synCmp(synKey("name"), .like, synConst("x"), .direct, options))
    }

    @Test func unknownOptionLetterThrowsAtTheLetter() {
        let error = synError("name LIKE[cx] 'x'")
        #expect(error?.offset == 11)
        #expect(error?.reason.contains("'x'") == true)
    }

    @Test func modifiers() throws {
        #expect(try synParse("ANY tags == 'a'") == synCmp(synKey("tags"), .equalTo, synConst("a"), .any))
        #expect(try synParse("some tags == 'a'") == synCmp(synKey("tags"), .equalTo, synConst("a"), .any))
        #expect(try synParse("ALL tags == 'a'") == synCmp(synKey("tags"), .equalTo, synConst("a"), .all))
        #expect(try synParse("NONE tags == 'a'") == .not(synCmp(synKey("tags"), .equalTo, synConst("a"), .any)))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let expected = PredicateNode.or([.and([synCmp(synKey("a"), .equalTo, synConst(true)), .not(synCmp(synKey("b"), .in, synKey("c")))]),
                                         .constant(true)])
        #expect(try synParse("a == yes and not b in c or truepredicate") == expected)
        #expect(try synParse("a == Yes AnD NoT b In c Or TruePredicate") == expected)
        #expect(try synParse("a == TRUE && !b IN c || TRUEPREDICATE") == expected)
    }

    @Test func literals() throws {
        #expect(try synParse("a == nil") == synCmp(synKey("a"), .equalTo, synConst(nil)))
        #expect(try synParse("a == NULL") == synCmp(synKey("a"), .equalTo, synConst(nil)))
        #expect(try synParse("a == NO") == synCmp(synKey("a"), .equalTo, synConst(false)))
        #expect(try synParse("SELF == FALSE") == synCmp(.evaluatedObject, .equalTo, synConst(false)))
        #expect(synConstantType(try synParseExpr("TRUE")) == "Bool")
        #expect(try synParseExpr("ANYKEY") == .anyKey)
        #expect(try synParse("FALSEPREDICATE") == .constant(false))
    }
}

// MARK: Precedence and structure

@Suite struct ParserPrecedenceTests {
    let a = synCmp(synKey("a"), .equalTo, synConst(1))
    let b = synCmp(synKey("b"), .equalTo, synConst(2))
    let c = synCmp(synKey("c"), .equalTo, synConst(3))

    @Test func andBindsTighterThanOr() throws {
        #expect(try synParse("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try synParse("a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
    }

    @Test func notBindsTighterThanAnd() throws {
        #expect(try synParse("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try synParse("NOT NOT a == 1") == .not(.not(a)))
    }

    @Test func chainsFlattenButGroupsDoNot() throws {
        #expect(try synParse("a == 1 OR b == 2 OR c == 3") == .or([a, b, c]))
        #expect(try synParse("(a == 1 AND b == 2) AND c == 3") == .and([.and([a, b]), c]))
        #expect(try synParse("((a == 1))") == a)
        #expect(try synParse("NOT (a == 1 OR b == 2)") == .not(.or([a, b])))
    }

    @Test func parenthesisOpeningAnExpression() throws {
        #expect(try synParse("(a + 1) > 2") == synCmp(synFn("add:to:", synKey("a"), synConst(1)), .greaterThan, synConst(2)))
        #expect(try synParse("(SELF.g)[0] == 2") == synCmp(synFn("objectFrom:withIndex:", synKey("g"), synConst(0)), .equalTo, synConst(2)))
        #expect(try synParse("((a)) * 2 == 4 AND b == 2") ==
            .and([synCmp(synFn("multiply:by:", synKey("a"), synConst(2)), .equalTo, synConst(4)), b]))
        #expect(try synParse("(a) == 1") == a)
    }

    @Test func arithmeticPrecedenceAndAssociativity() throws {
        #expect(try synParseExpr("1 + 2 * 3") == synFn("add:to:", synConst(1), synFn("multiply:by:", synConst(2), synConst(3))))
        #expect(try synParseExpr("1 - 2 - 3") == synFn("from:subtract:", synFn("from:subtract:", synConst(1), synConst(2)), synConst(3)))
        #expect(try synParseExpr("8 / 4 / 2") == synFn("divide:by:", synFn("divide:by:", synConst(8), synConst(4)), synConst(2)))
        #expect(try synParseExpr("2 ** 3 ** 2") == synFn("raise:toPower:", synFn("raise:toPower:", synConst(2), synConst(3)), synConst(2)))
        #expect(try synParseExpr("2 * 3 ** 2") == synFn("multiply:by:", synConst(2), synFn("raise:toPower:", synConst(3), synConst(2))))
        #expect(try synParseExpr("(1 + 2) * 3") == synFn("multiply:by:", synFn("add:to:", synConst(1), synConst(2)), synConst(3)))
        #expect(try synParseExpr("a UNION b + 1 INTERSECT c") ==
            .set(.intersect, .set(.union, synKey("a"), synFn("add:to:", synKey("b"), synConst(1))), synKey("c")))
        #expect(try synParseExpr("a minus b") == .set(.minus, synKey("a"), synKey("b")))
    }

    @Test func negativeNumbers() throws {
        #expect(try synParseExpr("-5") == synConst(-5))
        #expect(synConstantType(try synParseExpr("-5")) == "Int")
        #expect(try synParseExpr("-2.5") == synConst(-2.5))
        #expect(try synParseExpr("-a") == synFn("from:subtract:", synConst(0), synKey("a")))
        #expect(try synParseExpr("--5") == synFn("from:subtract:", synConst(0), synConst(-5)))
        #expect(try synParseExpr("3 - -5") == synFn("from:subtract:", synConst(3), synConst(-5)))
        #expect(try synParseExpr("-9223372036854775808") == synConst(Int.min))
        #expect(synConstantType(try synParseExpr("-9223372036854775808")) == "Int")
        #expect(try synParse("a > -1") == synCmp(synKey("a"), .greaterThan, synConst(-1)))
    }

    @Test func numberForms() throws {
        #expect(try synParseExpr("0x1F") == synConst(31))
        #expect(try synParseExpr("0o17") == synConst(15))
        #expect(try synParseExpr("0b101") == synConst(5))
        #expect(try synParseExpr("2.71828") == synConst(2.71828))
        #expect(try synParseExpr("9.2e-5") == synConst(9.2e-5))
        #expect(try synParseExpr("1E3") == synConst(1000.0))
        #expect(synConstantType(try synParseExpr("1E3")) == "Double")
        #expect(synConstantType(try synParseExpr("42")) == "Int")
        #expect(synConstantType(try synParseExpr("0x1F")) == "Int")
        #expect(synConstantType(try synParseExpr("99999999999999999999")) == "Double")
    }
}

// MARK: Strings, key paths, indexes

@Suite struct ParserTermTests {
    @Test func stringEscapes() throws {
        #expect(try synParseExpr(#""a\"b""#) == synConst("a\"b"))
        #expect(try synParseExpr(#"'it\'s'"#) == synConst("it's"))
        #expect(try synParseExpr(#"'say "hi"'"#) == synConst("say \"hi\""))
        #expect(try synParseExpr(#""it's""#) == synConst("it's"))
        #expect(try synParseExpr(#""\\ \n \t \r \0""#) == synConst("\\ \n \t \r \0"))
        #expect(try synParseExpr(#""\u00e9\x41""#) == synConst("éA"))
        #expect(try synParseExpr(#""\uD83D\uDE00""#) == synConst("😀"))
        #expect(try synParseExpr(#""\d+""#) == synConst("\\d+"))
    }

    @Test func noSubstitutionInsideQuotes() throws {
        #expect(try synParse("a == '%@'") == synCmp(synKey("a"), .equalTo, synConst("%@")))
        #expect(try synParse("%K == \"%K\"", "a") == synCmp(synKey("a"), .equalTo, synConst("%K")))
    }

    @Test func keyPaths() throws {
        #expect(try synParseExpr("a.b.c") == .keyPath(KeyPathComponents(components: ["a", "b", "c"])))
        #expect(try synParseExpr("SELF.a.b") == .keyPath(KeyPathComponents(components: ["a", "b"])))
        #expect(try synParseExpr("g.@max.#self") == .keyPath(KeyPathComponents(components: ["g", "@max", "self"])))
        #expect(try synParseExpr("#self") == synKey("self"))
        #expect(try synParseExpr("#SIZE.@count") == .keyPath(KeyPathComponents(components: ["SIZE", "@count"])))
        #expect(try synParseExpr("caf\\u00e9") == synKey("café"))
        #expect(try synParseExpr("ünïcode_1") == synKey("ünïcode_1"))
        #expect(try synParseExpr("$a") == .variable("a"))
        #expect(try synParseExpr("$a.b.c") == synFn("valueForKeyPath:", .variable("a"), synConst("b.c")))
        #expect(try synParseExpr("$a.$b") == synFn("valueForKeyPath:", .variable("a"), .variable("b")))
        #expect(try synParseExpr("'abc'.length") == synFn("valueForKeyPath:", synConst("abc"), synConst("length")))
        #expect(try synParseExpr("(1 + 2).x") == synFn("valueForKeyPath:", synFn("add:to:", synConst(1), synConst(2)), synConst("x")))
    }

    @Test func indexes() throws {
        #expect(try synParseExpr("a[FIRST]") == synFn("objectFrom:withIndex:", synKey("a"), .symbol(.first)))
        #expect(try synParseExpr("a[last]") == synFn("objectFrom:withIndex:", synKey("a"), .symbol(.last)))
        #expect(try synParseExpr("a[Size]") == synFn("objectFrom:withIndex:", synKey("a"), .symbol(.size)))
        #expect(try synParseExpr("a[0]") == synFn("objectFrom:withIndex:", synKey("a"), synConst(0)))
        #expect(try synParseExpr("a['k']") == synFn("objectFrom:withIndex:", synKey("a"), synConst("k")))
        #expect(try synParseExpr("a[1 + 1][0]") ==
            synFn("objectFrom:withIndex:", synFn("objectFrom:withIndex:", synKey("a"), synFn("add:to:", synConst(1), synConst(1))), synConst(0)))
        #expect(try synParseExpr("a[0].b") == synFn("valueForKeyPath:", synFn("objectFrom:withIndex:", synKey("a"), synConst(0)), synConst("b")))
    }

    @Test func aggregates() throws {
        #expect(try synParseExpr("{}") == .aggregate([]))
        #expect(try synParseExpr("{1, 'a', {b}}") == .aggregate([synConst(1), synConst("a"), .aggregate([synKey("b")])]))
        #expect(try synParse("a BETWEEN {1, 10}") == synCmp(synKey("a"), .between, .aggregate([synConst(1), synConst(10)])))
    }
}

// MARK: Functions and special forms

@Suite struct ParserFunctionTests {
    @Test func callSyntax() throws {
        #expect(try synParseExpr("now()") == synFn("now"))
        #expect(try synParseExpr("sum(a)") == synFn("sum:", synKey("a")))
        #expect(try synParseExpr("max({1, 2})") == synFn("max:", .aggregate([synConst(1), synConst(2)])))
        #expect(try synParseExpr("uppercase(x)") == synFn("uppercase:", synKey("x")))
        #expect(try synParseExpr("noindex(x)") == synFn("noindex:", synKey("x")))
        #expect(try synParseExpr("randomn(10)") == synFn("random:", synConst(10)))
    }

    @Test func selectorSyntax() throws {
        #expect(try synParseExpr("sum:(1, 2, 3)") == synFn("sum:", synConst(1), synConst(2), synConst(3)))
        #expect(try synParseExpr("multiply:by:(5, 3)") == synFn("multiply:by:", synConst(5), synConst(3)))
        #expect(try synParseExpr("modulus:by:(1, 2)") == synFn("modulus:by:", synConst(1), synConst(2)))
        #expect(try synParseExpr("bitwiseAnd:with:(5, 3)") == synFn("bitwiseAnd:with:", synConst(5), synConst(3)))
        #expect(try synParseExpr("count:(Record1.Children)") == synFn("count:", synKey("Record1.Children")))
        #expect(try synParseExpr("noindex:(x)") == synFn("noindex:", synKey("x")))
    }

    @Test func specialForms() throws {
        let inner = synCmp(synKey("$x.a"), .equalTo, synConst(1))
        #expect(try synParseExpr("SUBQUERY(items, $x, $x.a == 1)") ==
            .subquery(collection: synKey("items"), variable: "x",
                      predicate: synCmp(synFn("valueForKeyPath:", .variable("x"), synConst("a")), .equalTo, synConst(1))))
        _ = inner
        #expect(try synParseExpr("TERNARY(a == 1, 'y', 'n')") ==
            .conditional(synCmp(synKey("a"), .equalTo, synConst(1)), synConst("y"), synConst("n")))
        #expect(try synParseExpr("CAST(a, 'NSNumber')") == synFn("castObject:toType:", synKey("a"), synConst("NSNumber")))
        #expect(try synParseExpr("FUNCTION(SELF, 'foo:bar:', 1, b)") ==
            .customFunction(receiver: .evaluatedObject, selector: "foo:bar:", arguments: [synConst(1), synKey("b")]))
        #expect(try synParseExpr("TERNARY(a == 1, 'y', 'n').length") ==
            synFn("valueForKeyPath:", .conditional(synCmp(synKey("a"), .equalTo, synConst(1)), synConst("y"), synConst("n")), synConst("length")))
    }

    @Test func unsupportedForms() {
        #expect(synError("FETCH(a, b, NO) == 1")?.reason == "'FETCH' is not supported")
        #expect(synError("a UTI-CONFORMS-TO 'public.text'")?.reason == "'UTI-CONFORMS-TO' is not supported")
        #expect(synError("$a := 1")?.reason.contains("':='") == true)
    }
}

// MARK: Format specifiers

@Suite struct ParserSpecifierTests {
    @Test func objectAndKeyPath() throws {
        #expect(try synParse("%K == %@", "name", "x") == synCmp(synKey("name"), .equalTo, synConst("x")))
        #expect(try synParse("%K == 1", "a.b") == synCmp(.keyPath(KeyPathComponents(components: ["a", "b"])), .equalTo, synConst(1)))
        // A key path from %K is never a variable.
        #expect(try synParse("%K like %@", "$single", "x") == synCmp(synKey("$single"), .like, synConst("x")))
        #expect(try synParse("a == %@", nil) == synCmp(synKey("a"), .equalTo, synConst(nil)))
        #expect(try synParse("%K.b == 1", "a") == synCmp(synKey("a.b"), .equalTo, synConst(1)))
    }

    static let integerSpecifiers = ["%d", "%i", "%ld", "%lld", "%u", "%lu", "%llu", "%hd", "%hu", "%qd", "%x", "%X", "%o"]

    @Test(arguments: integerSpecifiers)
    func integerSpecifier(spec: String) throws {
        for argument in [7 as Any, Int32(7), UInt8(7), 7.9, NSNumber(value: 7)] {
            let expression = try synParseExpr(spec, argument)
            #expect(expression == synConst(7))
            #expect(synConstantType(expression) == "Int")
        }
        #expect(throws: PredicateSyntaxError.self) { try synParseExpr(spec, "7") }
    }

    @Test(arguments: ["%f", "%lf", "%e", "%g", "%E", "%G"])
    func doubleSpecifier(spec: String) throws {
        for argument in [2.5 as Any, Float(2.5), NSNumber(value: 2.5)] {
            let expression = try synParseExpr(spec, argument)
            #expect(expression == synConst(2.5))
            #expect(synConstantType(expression) == "Double")
        }
        #expect(synConstantType(try synParseExpr(spec, 3)) == "Double")
    }

    @Test func stringAndCharacter() throws {
        #expect(try synParseExpr("%s", "hi") == synConst("hi"))
        #expect(synConstantType(try synParseExpr("%s", "hi")) == "String")
        #expect(try synParseExpr("%c", Character("x")) == synConst("x"))
        #expect(try synParseExpr("%c", "y") == synConst("y"))
        #expect(try synParseExpr("%c", 65) == synConst("A"))
    }

    @Test func specifierErrors() {
        let missing = synError("%K == %@", ["a"])
        #expect(missing?.reason == "missing argument for %@ (format has 2 specifiers, 1 argument given)")
        #expect(missing?.offset == 6)
        #expect(synError("%K == 1", [5])?.reason == "%K needs a string argument")
        let lowerK = synError("%k == 1", ["a"])
        #expect(lowerK?.offset == 0)
        #expect(lowerK?.reason.contains("%k") == true)
    }
}

// MARK: Errors and limits

@Suite struct ParserErrorTests {
    static let cases: [(format: String, offset: Int, reason: String)] = [
        ("name == 'abc", 8, "unterminated string"),
        ("name == \"abc'", 8, "unterminated string"),
        ("(a == 1", 7, "expected ')'"),
        ("a == 1)", 6, "unexpected ')'"),
        ("a[0 == 1", 4, "expected ']'"),
        ("a == {1, 2", 10, "expected ',' or '}'"),
        ("foo(1) == 2", 0, "unknown function 'foo'"),
        ("foo:(1) == 2", 0, "unknown function 'foo:'"),
        ("sum:() == 2", 0, "'sum:' takes 1 or more arguments, got 0"),
        ("multiply:by:(1) == 2", 0, "'multiply:by:' takes 2 arguments, got 1"),
        ("now(1) == 2", 0, "'now' takes no arguments, got 1"),
        ("1", 1, "expected a comparison operator"),
        ("TRUE", 4, "expected a comparison operator"),
        ("0 || 1", 2, "expected a comparison operator"),
        ("a ==", 4, "unexpected end of format string"),
        ("", 0, "unexpected end of format string"),
        ("a.size == 1", 2, "reserved word"),
        ("a == b c", 7, "unexpected 'c'"),
        ("a & b", 2, "unexpected character '&'"),
    ]

    @Test(arguments: cases)
    func errorOffsetAndReason(format: String, offset: Int, reason: String) {
        let error = synError(format)
        #expect(error?.offset == offset, "\(format): \(error?.reason ?? "parsed")")
        #expect(error?.reason.contains(reason) == true, "\(format): \(error?.reason ?? "parsed")")
    }

    @Test func deepNestingThrowsQuickly() {
        let depth = 1_000_000
        let parens = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        let error = synError(parens)
        #expect(error?.reason == "nesting deeper than 500")
        #expect(error?.offset == 500)
        #expect(synError(String(repeating: "NOT ", count: depth) + "a == 1")?.reason == "nesting deeper than 500")
        #expect(synError("a == " + String(repeating: "-", count: depth) + "1")?.reason == "nesting deeper than 500")
        #expect(synError("a == " + String(repeating: "{", count: depth))?.reason == "nesting deeper than 500")
        #expect(synError("a == b" + String(repeating: "[0]", count: depth))?.reason == "nesting deeper than 500")
        #expect(synError("a == 1" + String(repeating: " + 1", count: depth))?.reason == "nesting deeper than 500")
        #expect(synError("a == " + String(repeating: "sum(", count: depth))?.reason == "nesting deeper than 500")
    }

    @Test func nestingAtTheLimitParses() throws {
        let depth = ParserLimits.maxNestingDepth
        let parens = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(try synParse(parens) == synCmp(synKey("a"), .equalTo, synConst(1)))
    }

    /// The deepest accepted input must parse on a 512 KiB secondary-thread stack.
    @Test func deepestNestingFitsA512KiBStack() {
        let depth = ParserLimits.maxNestingDepth
        let formats = [
            String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth),
            "a == " + String(repeating: "(", count: depth - 1) + "1" + String(repeating: ")", count: depth - 1),
            "a == " + String(repeating: "sum(", count: depth - 1) + "1" + String(repeating: ")", count: depth - 1),
            "a == 1" + String(repeating: " + 1", count: depth - 1),
            "a == b" + String(repeating: "[0]", count: depth - 1),
            String(repeating: "NOT ", count: depth) + "a == 1",
            String(repeating: "(TERNARY(", count: depth / 2) + "a == 1" + String(repeating: ", 1, 2) == 1)", count: depth / 2),
        ]
        let results = onSmallStackThread {
            formats.map { format -> String in
                do {
                    _ = try PredicateParser.parsePredicate(format, arguments: [])
                    return "ok"
                } catch {
                    return String(describing: error)
                }
            }
        }
        #expect(results == Array(repeating: "ok", count: formats.count))
    }

    @Test func tenMegabyteStringParses() throws {
        let body = String(repeating: "abcdefghi\\\"", count: 1_000_000)
        let tree = try synParse("name == \"" + body + "\"")
        guard case .comparison(let comparison) = tree, case .constant(let constant) = comparison.right,
              let value = constant.value as? String else {
            Issue.record("not a string comparison")
            return
        }
        #expect(value.utf8.count == 10_000_000)
        #expect(value.hasPrefix("abcdefghi\"abc"))
    }
}

