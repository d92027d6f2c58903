import Foundation

/// Parses `NSPredicate` / `NSExpression` format strings into `PredicateNode` / `ExpressionNode`.
///
/// The grammar is Apple's (Predicate Programming Guide, "Predicate Format String Syntax");
/// keywords are case-insensitive and whitespace is insignificant. Precedence, lowest first:
///
/// - predicates: `OR` (`||`) < `AND` (`&&`) < `NOT` (`!`) < comparison. This choice (NOT binds
///   tighter than AND, which binds tighter than OR) is ours; Apple does not document one.
///   `a OR b OR c` becomes one `.or` with three operands; a parenthesized group is kept as its own
///   node (`(a AND b) AND c` is `.and([.and([a, b]), c])`).
/// - expressions: `UNION`/`INTERSECT`/`MINUS` < `+ -` < `* /` < `**` < unary `-` < postfix
///   (`.key`, `[index]`); every binary operator is left-associative.
///
/// A `(` at the start of a predicate may open a predicate or an expression (`(a + 1) > 2`); the
/// parser reads the inside as a predicate that may also be a bare expression, and continues as an
/// expression when it was one. No backtracking, so parsing is linear in the length of the format.
///
/// Every error is a `PredicateSyntaxError` with the UTF-8 offset of the problem.
enum PredicateParser {
    /// Parses a predicate format string, consuming `arguments` for its format specifiers.
    static func parsePredicate(_ format: String, arguments: [Any?]) throws(PredicateSyntaxError) -> PredicateNode {
        var parser = try FormatParser(format: format, arguments: arguments)
        return try parser.runWithEnoughStack { (parser: inout FormatParser) throws(PredicateSyntaxError) in
            let predicate = try parser.parsePredicateNode()
            try parser.expectEnd()
            return predicate
        }
    }

    /// Parses an expression format string, consuming `arguments` for its format specifiers.
    static func parseExpression(_ format: String, arguments: [Any?]) throws(PredicateSyntaxError) -> ExpressionNode {
        var parser = try FormatParser(format: format, arguments: arguments)
        return try parser.runWithEnoughStack { (parser: inout FormatParser) throws(PredicateSyntaxError) in
            let expression = try parser.parseExpression()
            try parser.expectEnd()
            return expression
        }
    }
}

/// The state of one parse: the tokens, the position, the arguments left and the nesting depth.
/// The grammar rules live in `Parser+Predicates.swift` and `Parser+Expressions.swift`.
struct FormatParser {
    let format: String
    let bytes: [UInt8]
    let tokens: [Token]
    let specifierCount: Int
    let arguments: [Any?]
    var argumentIndex = 0
    var index = 0
    var depth = 0

    init(format: String, arguments: [Any?]) throws(PredicateSyntaxError) {
        let bytes = Array(format.utf8)
        guard bytes.count <= ParserLimits.maxFormatLength else {
            throw PredicateSyntaxError(
                format: format, offset: ParserLimits.maxFormatLength,
                reason: "format string longer than \(ParserLimits.maxFormatLength) bytes")
        }
        self.format = format
        self.bytes = bytes
        (tokens, specifierCount) = try Lexer.tokenize(format, bytes: bytes)
        self.arguments = arguments
        var open = 0
        var deepest = 0
        for token in tokens {
            switch token.kind {
            case .punct(.leftParen), .punct(.leftBracket), .punct(.leftBrace):
                open += 1
                deepest = max(deepest, open)
            case .punct(.rightParen), .punct(.rightBracket), .punct(.rightBrace):
                open -= 1
            default:
                break
            }
        }
        bracketDepth = deepest
    }

    /// The deepest nesting of `(`, `[` and `{` in the token stream (the parser recurses once per level).
    let bracketDepth: Int

    /// Runs `body` on this thread when the format nests shallowly, otherwise through
    /// `LargeStack`, so deep (but legal) input cannot overflow the caller's stack.
    mutating func runWithEnoughStack<T>(
        _ body: (inout FormatParser) throws(PredicateSyntaxError) -> T
    ) throws(PredicateSyntaxError) -> T {
        if bracketDepth <= ParserLimits.maxInlineBracketDepth {
            return try body(&self)
        }
        var parser = self
        let result = LargeStack.run {
            Result { () throws(PredicateSyntaxError) -> T in try body(&parser) }
        }
        self = parser
        return try result.get()
    }

    // MARK: Tokens

    var current: Token { tokens[index] }

    /// The token `offset` places after the current one (the `.end` token past the end).
    func peek(_ offset: Int = 1) -> Token {
        tokens[min(index + offset, tokens.count - 1)]
    }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    func isPunct(_ punct: Punct, _ token: Token? = nil) -> Bool {
        (token ?? current).kind == .punct(punct)
    }

    func isKeyword(_ keyword: Keyword, _ token: Token? = nil) -> Bool {
        (token ?? current).kind == .keyword(keyword)
    }

    // MARK: Errors

    func error(_ reason: String, at offset: Int) -> PredicateSyntaxError {
        PredicateSyntaxError(format: format, offset: offset, reason: reason)
    }

    /// How a token reads in an error message: `')'`, `'foo'`, `end of format string`.
    func describe(_ token: Token) -> String {
        if token.kind == .end { return "end of format string" }
        let length = min(token.end - token.start, 40)
        let text = String(decoding: bytes[token.start..<(token.start + length)], as: UTF8.self)
        return "'" + text + (token.end - token.start > 40 ? "…" : "") + "'"
    }

    /// `expected X, found 'y'`, or `unexpected end of format string, expected X` at the end.
    func expected(_ what: String) -> PredicateSyntaxError {
        if current.kind == .end {
            return error("unexpected end of format string, expected \(what)", at: current.start)
        }
        return error("expected \(what), found \(describe(current))", at: current.start)
    }

    mutating func expect(_ punct: Punct, _ what: String) throws(PredicateSyntaxError) {
        guard isPunct(punct) else { throw expected(what) }
        advance()
    }

    mutating func expectEnd() throws(PredicateSyntaxError) {
        guard current.kind == .end else {
            throw error("unexpected \(describe(current))", at: current.start)
        }
    }

    // MARK: Depth

    /// Counts one level of nesting; throws past `ParserLimits.maxNestingDepth`.
    mutating func enter(at offset: Int) throws(PredicateSyntaxError) {
        depth += 1
        if depth > ParserLimits.maxNestingDepth {
            throw error("nesting deeper than \(ParserLimits.maxNestingDepth)", at: offset)
        }
    }

    mutating func leave(_ levels: Int = 1) {
        depth -= levels
    }

    // MARK: Format arguments

    /// The expression for the format specifier `token` (`%@`, `%K`, `%d` …), consuming one argument.
    mutating func substitute(_ token: Token) throws(PredicateSyntaxError) -> ExpressionNode {
        let spec = "%" + token.text
        guard argumentIndex < arguments.count else {
            let specs = specifierCount == 1 ? "1 specifier" : "\(specifierCount) specifiers"
            let args = arguments.count == 1 ? "1 argument" : "\(arguments.count) arguments"
            throw error("missing argument for \(spec) (format has \(specs), \(args) given)", at: token.start)
        }
        let argument = Self.unwrap(arguments[argumentIndex])
        argumentIndex += 1
        guard let conversion = token.text.last else { throw error("incomplete format specifier", at: token.start) }
        switch conversion {
        case "@":
            return .constant(ConstantValue(argument))
        case "K":
            guard let key = Self.string(from: argument) else {
                throw error("%K needs a string argument", at: token.start)
            }
            return .keyPath(KeyPathComponents(key))
        case "s":
            guard let string = Self.string(from: argument) else {
                throw error("\(spec) needs a string argument", at: token.start)
            }
            return .constant(ConstantValue(string))
        case "c":
            guard let character = Self.character(from: argument) else {
                throw error("\(spec) needs a character argument", at: token.start)
            }
            return .constant(ConstantValue(character))
        case "f", "F", "e", "E", "g", "G":
            guard let double = Self.double(from: argument) else {
                throw error("\(spec) needs a number argument", at: token.start)
            }
            return .constant(ConstantValue(double))
        default:
            guard let integer = Self.integer(from: argument) else {
                throw error("\(spec) needs an integer argument", at: token.start)
            }
            return .constant(ConstantValue(integer))
        }
    }

    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            return mirror.children.first.flatMap { unwrap($0.value) }
        }
        return value
    }

    static func isNSNumber(_ value: Any) -> Bool {
        type(of: value) is NSNumber.Type
    }

    static func string(from value: Any?) -> String? {
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let string as NSString: return String(describing: string)
        case let pointer as UnsafePointer<CChar>: return String(cString: pointer)
        case let pointer as UnsafeMutablePointer<CChar>: return String(cString: pointer)
        default: return nil
        }
    }

    static func character(from value: Any?) -> String? {
        switch value {
        case let character as Character: return String(character)
        case let scalar as Unicode.Scalar: return String(Character(scalar))
        case let string as String: return string.count == 1 ? string : nil
        default:
            if let code = integer(from: value) as? Int, code >= 0, code <= Int(UInt32.max),
                let scalar = Unicode.Scalar(UInt32(code))
            {
                return String(Character(scalar))
            }
            return nil
        }
    }

    /// An `Int` for `%d`-style specifiers (an unsigned value too big for `Int` is kept as is).
    static func integer(from value: Any?) -> Any? {
        guard let value else { return nil }
        if isNSNumber(value), let number = value as? NSNumber {
            let type = String(cString: number.objCType)
            if type == "f" || type == "d" { return double(from: number.doubleValue).flatMap { integer(from: $0) } }
            if type == "Q", number.uint64Value > UInt64(Int.max) { return number.uint64Value }
            return number.intValue
        }
        switch value {
        case let bool as Bool: return bool ? 1 : 0
        case let integer as any BinaryInteger: return Int(exactly: integer) ?? value
        case let double as Double:
            let truncated = double.rounded(.towardZero)
            return Int(exactly: truncated)
        case let float as Float: return Int(exactly: Double(float).rounded(.towardZero))
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).intValue
        case let float as any BinaryFloatingPoint: return Int(exactly: Double(float).rounded(.towardZero))
        default: return nil
        }
    }

    /// A `Double` for `%f`-style specifiers.
    static func double(from value: Any?) -> Double? {
        guard let value else { return nil }
        if isNSNumber(value), let number = value as? NSNumber { return number.doubleValue }
        switch value {
        case let double as Double: return double
        case let float as Float: return Double(float)
        case let bool as Bool: return bool ? 1 : 0
        case let integer as any BinaryInteger: return Double(integer)
        case let decimal as Decimal: return decimal.nearestDouble
        case let float as any BinaryFloatingPoint: return Double(float)
        default: return nil
        }
    }
}
