/// A reserved word of the format language. Keywords are matched case-insensitively; `#word`
/// turns one back into an ordinary identifier (`#self`, `g.@max.#size`).
enum Keyword: String, CaseIterable {
    case and = "AND", or = "OR", inKeyword = "IN", not = "NOT"
    case all = "ALL", any = "ANY", some = "SOME", none = "NONE"
    case like = "LIKE", caseInsensitive = "CASEINSENSITIVE", ci = "CI", matches = "MATCHES"
    case contains = "CONTAINS", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", between = "BETWEEN"
    case null = "NULL", nilKeyword = "NIL", selfKeyword = "SELF"
    case trueKeyword = "TRUE", yes = "YES", falseKeyword = "FALSE", no = "NO"
    case first = "FIRST", last = "LAST", size = "SIZE", anyKey = "ANYKEY"
    case subquery = "SUBQUERY", fetch = "FETCH", cast = "CAST"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    case utiConformsTo = "UTI-CONFORMS-TO", utiEquals = "UTI-EQUALS"
    case function = "FUNCTION", ternary = "TERNARY"
    case union = "UNION", intersect = "INTERSECT", minus = "MINUS"

    /// The one keyword table: upper-cased spelling to keyword.
    static let table: [String: Keyword] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// Whether `word` is reserved (so a key path component spelled so needs a `#`).
    static func isReserved(_ word: String) -> Bool {
        table[word.uppercased()] != nil
    }
}

/// Punctuation and operator tokens.
enum Punct: Equatable {
    case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace, comma, dot
    /// `==` or `=`.
    case equal
    /// `!=` or `<>`.
    case notEqual
    case less, lessEqual, greater, greaterEqual
    /// `&&`, `||`, `!`.
    case andAnd, orOr, bang
    case plus, minus, star, starStar, slash
    /// `:=` (assignment; recognised only to be rejected).
    case assign
}

/// The value of a numeric literal, before a leading `-` is folded in.
enum NumberLiteral: Equatable {
    /// An integer literal's magnitude.
    case integer(UInt64)
    /// A literal with a fraction or exponent, or an integer too big for 64 bits.
    case double(Double)

    /// The constant: `Int` when it fits, otherwise `Double`.
    func value(negated: Bool) -> Any {
        switch self {
        case .integer(let magnitude):
            if !negated, magnitude <= UInt64(Int.max) { return Int(magnitude) }
            if negated, magnitude <= UInt64(Int.max) { return -Int(magnitude) }
            if negated, magnitude == UInt64(Int.max) + 1 { return Int.min }
            return negated ? -Double(magnitude) : Double(magnitude)
        case .double(let value):
            return negated ? -value : value
        }
    }
}

/// One token: its kind, its UTF-8 byte range in the format string and its decoded payload.
struct Token {
    enum Kind: Equatable {
        /// A key or function name; `text` is decoded (`#` and `\u` escapes removed, `@` kept).
        case identifier
        case keyword(Keyword)
        /// Selector syntax `multiply:by:` (identifier chunks each ending in `:`); `text` is the selector.
        case selector
        /// `$NAME`; `text` is `NAME`.
        case variable
        case number(NumberLiteral)
        /// A quoted string; `text` is the decoded contents.
        case string
        /// A format specifier; `text` is what follows `%` (`@`, `K`, `lld`, …).
        case specifier
        case punct(Punct)
        case end
    }

    var kind: Kind
    var start: Int
    var end: Int
    var text: String = ""
}

/// Splits the UTF-8 of a format string into tokens in one linear pass.
struct Lexer {
    let format: String
    let bytes: [UInt8]
    private var position = 0
    private var tokens: [Token] = []
    private var specifierCount = 0

    private init(format: String, bytes: [UInt8]) {
        self.format = format
        self.bytes = bytes
    }

    /// All tokens of `format` (ending with `.end`) and the number of format specifiers.
    static func tokenize(_ format: String, bytes: [UInt8]) throws(PredicateSyntaxError) -> (tokens: [Token], specifierCount: Int)
    {
        var lexer = Lexer(format: format, bytes: bytes)
        try lexer.run()
        return (lexer.tokens, lexer.specifierCount)
    }

    private func error(_ reason: String, at offset: Int) -> PredicateSyntaxError {
        PredicateSyntaxError(format: format, offset: offset, reason: reason)
    }

    private func byte(at index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    static func isIdentifierByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b >= 0x80
    }

    static func isIdentifierStart(_ b: UInt8) -> Bool {
        isIdentifierByte(b) && !(b >= 0x30 && b <= 0x39)
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private mutating func run() throws(PredicateSyntaxError) {
        while true {
            while let b = byte(at: position), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C || b == 0x0B {
                position += 1
            }
            guard let b = byte(at: position) else { break }
            let start = position
            switch b {
            case 0x22, 0x27:  // " '
                let text = try lexString(quote: b)
                tokens.append(Token(kind: .string, start: start, end: position, text: text))
            case 0x24:  // $
                position += 1
                guard let next = byte(at: position), Self.isIdentifierStart(next) || next == 0x5C else {
                    throw error("expected a variable name after '$'", at: start)
                }
                let name = try lexIdentifierBody()
                tokens.append(Token(kind: .variable, start: start, end: position, text: name))
            case 0x25:  // %
                try lexSpecifier()
            case 0x30...0x39:
                let number = try lexNumber()
                tokens.append(Token(kind: .number(number), start: start, end: position))
            case 0x23:  // # escapes a reserved word
                position += 1
                guard let next = byte(at: position), Self.isIdentifierStart(next) || next == 0x40 || next == 0x5C else {
                    throw error("expected an identifier after '#'", at: start)
                }
                var name = ""
                if next == 0x40 { name = "@"; position += 1 }
                name += try lexIdentifierBody()
                tokens.append(Token(kind: .identifier, start: start, end: position, text: name))
            case 0x40:  // @count, @sum …
                position += 1
                guard let next = byte(at: position), Self.isIdentifierStart(next) || next == 0x5C else {
                    throw error("expected an identifier after '@'", at: start)
                }
                let name = try lexIdentifierBody()
                tokens.append(Token(kind: .identifier, start: start, end: position, text: "@" + name))
            default:
                if Self.isIdentifierStart(b) || (b == 0x5C && byte(at: position + 1) == 0x75) {
                    try lexWord()
                } else {
                    try lexPunctuation(b)
                }
            }
        }
        tokens.append(Token(kind: .end, start: bytes.count, end: bytes.count))
    }

    // MARK: Words

    /// An identifier, keyword, selector chunk list (`multiply:by:`) or `UTI-…` operator.
    private mutating func lexWord() throws(PredicateSyntaxError) {
        let start = position
        let name = try lexIdentifierBody()
        // Selector syntax: `name:` chunks, then `(` (checked by the parser).
        if byte(at: position) == 0x3A, byte(at: position + 1) != 0x3D {
            var selector = name + ":"
            position += 1
            while let b = byte(at: position), Self.isIdentifierStart(b) {
                let save = position
                let chunk = try lexIdentifierBody()
                guard byte(at: position) == 0x3A, byte(at: position + 1) != 0x3D else {
                    position = save
                    break
                }
                position += 1
                selector += chunk + ":"
            }
            tokens.append(Token(kind: .selector, start: start, end: position, text: selector))
            return
        }
        let upper = name.uppercased()
        if upper == "UTI", byte(at: position) == 0x2D {
            for suffix in ["-CONFORMS-TO", "-EQUALS"] where matchesCaseInsensitive(suffix, at: position) {
                let after = position + suffix.utf8.count
                if let b = byte(at: after), Self.isIdentifierByte(b) { continue }
                position = after
                let keyword: Keyword = suffix == "-EQUALS" ? .utiEquals : .utiConformsTo
                tokens.append(Token(kind: .keyword(keyword), start: start, end: position, text: keyword.rawValue))
                return
            }
        }
        if let keyword = Keyword.table[upper] {
            tokens.append(Token(kind: .keyword(keyword), start: start, end: position, text: name))
        } else {
            tokens.append(Token(kind: .identifier, start: start, end: position, text: name))
        }
    }

    private func matchesCaseInsensitive(_ word: String, at offset: Int) -> Bool {
        var index = offset
        for expected in word.utf8 {
            guard let b = byte(at: index) else { return false }
            let folded = (b >= 0x61 && b <= 0x7A) ? b - 0x20 : b
            if folded != expected { return false }
            index += 1
        }
        return true
    }

    /// Identifier characters (letters, digits, `_`, any non-ASCII, `\uXXXX`) from `position`.
    private mutating func lexIdentifierBody() throws(PredicateSyntaxError) -> String {
        let start = position
        var hasEscape = false
        while let b = byte(at: position) {
            if Self.isIdentifierByte(b) {
                position += 1
            } else if b == 0x5C, byte(at: position + 1) == 0x75 {
                hasEscape = true
                position += 2
                _ = try hexValue(digits: 4, escapeStart: position - 2)
            } else {
                break
            }
        }
        if !hasEscape {
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
        // Decode the `\u` escapes.
        var out: [UInt8] = []
        var index = start
        while index < position {
            if bytes[index] == 0x5C {
                var scalarValue: UInt32 = 0
                for offset in 2..<6 { scalarValue = scalarValue * 16 + UInt32(Self.hexDigit(bytes[index + offset]) ?? 0) }
                guard let scalar = Unicode.Scalar(scalarValue) else {
                    throw error("invalid \\u escape in identifier", at: index)
                }
                out.append(contentsOf: String(Character(scalar)).utf8)
                index += 6
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    /// Reads `digits` hex digits at `position` and advances past them.
    private mutating func hexValue(digits: Int, escapeStart: Int) throws(PredicateSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let b = byte(at: position), let digit = Self.hexDigit(b) else {
                throw error("expected \(digits) hex digits in escape", at: escapeStart)
            }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }

    // MARK: Strings

    /// A quoted string; `position` is at the opening quote. Linear: unescaped runs are copied in bulk.
    private mutating func lexString(quote: UInt8) throws(PredicateSyntaxError) -> String {
        let start = position
        position += 1
        var out: [UInt8] = []
        var runStart = position
        while true {
            guard let b = byte(at: position) else {
                throw error("unterminated string", at: start)
            }
            if b == quote {
                out.append(contentsOf: bytes[runStart..<position])
                position += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b != 0x5C {
                position += 1
                continue
            }
            out.append(contentsOf: bytes[runStart..<position])
            let escapeStart = position
            position += 1
            guard let e = byte(at: position) else { throw error("unterminated string", at: start) }
            position += 1
            switch e {
            case 0x22, 0x27, 0x5C: out.append(e)
            case 0x6E: out.append(0x0A)  // n
            case 0x74: out.append(0x09)  // t
            case 0x72: out.append(0x0D)  // r
            case 0x30: out.append(0x00)  // 0
            case 0x61: out.append(0x07)  // a
            case 0x62: out.append(0x08)  // b
            case 0x66: out.append(0x0C)  // f
            case 0x76: out.append(0x0B)  // v
            case 0x75, 0x78:  // u, x
                var value = try hexValue(digits: e == 0x75 ? 4 : 2, escapeStart: escapeStart)
                if e == 0x75, (0xD800...0xDBFF).contains(value) {
                    // A UTF-16 surrogate pair spelled as two escapes.
                    guard byte(at: position) == 0x5C, byte(at: position + 1) == 0x75 else {
                        throw error("unpaired surrogate in \\u escape", at: escapeStart)
                    }
                    position += 2
                    let low = try hexValue(digits: 4, escapeStart: position - 2)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("unpaired surrogate in \\u escape", at: escapeStart)
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw error("invalid escape: not a Unicode scalar", at: escapeStart)
                }
                out.append(contentsOf: String(Character(scalar)).utf8)
            default:
                // Unknown escapes are kept as written, so regular expressions (`\d`) survive.
                out.append(0x5C)
                out.append(e)
            }
            runStart = position
        }
    }

    // MARK: Numbers

    private mutating func lexNumber() throws(PredicateSyntaxError) -> NumberLiteral {
        let start = position
        if bytes[position] == 0x30, let prefix = byte(at: position + 1) {
            let radix: UInt64
            switch prefix {
            case 0x78, 0x58: radix = 16
            case 0x6F, 0x4F: radix = 8
            case 0x62, 0x42: radix = 2
            default: radix = 0
            }
            if radix != 0 {
                position += 2
                var magnitude: UInt64 = 0
                var overflowed = false
                var approximate = 0.0
                let digitsStart = position
                while let b = byte(at: position), let digit = Self.hexDigit(b), UInt64(digit) < radix {
                    let (times, o1) = magnitude.multipliedReportingOverflow(by: radix)
                    let (plus, o2) = times.addingReportingOverflow(UInt64(digit))
                    overflowed = overflowed || o1 || o2
                    magnitude = plus
                    approximate = approximate * Double(radix) + Double(digit)
                    position += 1
                }
                if position == digitsStart {
                    throw error("expected digits after '0\(Character(Unicode.Scalar(prefix)))'", at: start)
                }
                try checkNumberEnd(start)
                return overflowed ? .double(approximate) : .integer(magnitude)
            }
        }
        var isDouble = false
        while let b = byte(at: position), Self.isDigit(b) { position += 1 }
        if byte(at: position) == 0x2E, let next = byte(at: position + 1), Self.isDigit(next) {
            isDouble = true
            position += 1
            while let b = byte(at: position), Self.isDigit(b) { position += 1 }
        }
        if let e = byte(at: position), e == 0x65 || e == 0x45 {
            var index = position + 1
            if let sign = byte(at: index), sign == 0x2B || sign == 0x2D { index += 1 }
            if let digit = byte(at: index), Self.isDigit(digit) {
                isDouble = true
                position = index
                while let b = byte(at: position), Self.isDigit(b) { position += 1 }
            }
        }
        try checkNumberEnd(start)
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if !isDouble, let magnitude = UInt64(text) { return .integer(magnitude) }
        guard let value = Double(text) else { throw error("invalid number", at: start) }
        return .double(value)
    }

    private func checkNumberEnd(_ start: Int) throws(PredicateSyntaxError) {
        if let b = byte(at: position), Self.isIdentifierByte(b) {
            throw error("invalid character in number", at: position)
        }
    }

    // MARK: Specifiers and punctuation

    private mutating func lexSpecifier() throws(PredicateSyntaxError) {
        let start = position
        position += 1
        if byte(at: position) == 0x25 {
            throw error("'%%' is only allowed inside a quoted string", at: start)
        }
        // Length modifiers, then the conversion.
        while let b = byte(at: position), b == 0x6C || b == 0x68 || b == 0x71 || b == 0x7A || b == 0x6A || b == 0x74 || b == 0x4C
        {
            position += 1
        }
        guard let conversion = byte(at: position) else {
            throw error("incomplete format specifier", at: start)
        }
        position += 1
        let text = String(decoding: bytes[(start + 1)..<position], as: UTF8.self)
        let hasLength = position - start > 2
        switch conversion {
        case 0x40, 0x4B, 0x73, 0x63:  // @ K s c
            if hasLength && conversion != 0x63 && conversion != 0x73 {
                throw error("unknown format specifier '%\(text)'", at: start)
            }
        case 0x64, 0x69, 0x75, 0x78, 0x58, 0x6F, 0x66, 0x65, 0x67, 0x45, 0x47, 0x46:  // d i u x X o f e g E G F
            break
        default:
            throw error("unknown format specifier '%\(text)'", at: start)
        }
        specifierCount += 1
        tokens.append(Token(kind: .specifier, start: start, end: position, text: text))
    }

    private mutating func lexPunctuation(_ b: UInt8) throws(PredicateSyntaxError) {
        let start = position
        let next = byte(at: position + 1)
        let punct: Punct
        var length = 1
        switch b {
        case 0x28: punct = .leftParen
        case 0x29: punct = .rightParen
        case 0x5B: punct = .leftBracket
        case 0x5D: punct = .rightBracket
        case 0x7B: punct = .leftBrace
        case 0x7D: punct = .rightBrace
        case 0x2C: punct = .comma
        case 0x2E: punct = .dot
        case 0x2B: punct = .plus
        case 0x2D: punct = .minus
        case 0x2F: punct = .slash
        case 0x2A:
            if next == 0x2A { punct = .starStar; length = 2 } else { punct = .star }
        case 0x3D:  // = == =< =>
            if next == 0x3D {
                punct = .equal; length = 2
            } else if next == 0x3C {
                punct = .lessEqual; length = 2
            } else if next == 0x3E {
                punct = .greaterEqual; length = 2
            } else {
                punct = .equal
            }
        case 0x21:  // ! !=
            if next == 0x3D { punct = .notEqual; length = 2 } else { punct = .bang }
        case 0x3C:  // < <= <>
            if next == 0x3D {
                punct = .lessEqual; length = 2
            } else if next == 0x3E {
                punct = .notEqual; length = 2
            } else {
                punct = .less
            }
        case 0x3E:  // > >=
            if next == 0x3D { punct = .greaterEqual; length = 2 } else { punct = .greater }
        case 0x26:
            guard next == 0x26 else { throw error("unexpected character '&' (did you mean '&&'?)", at: start) }
            punct = .andAnd; length = 2
        case 0x7C:
            guard next == 0x7C else { throw error("unexpected character '|' (did you mean '||'?)", at: start) }
            punct = .orOr; length = 2
        case 0x3A:
            guard next == 0x3D else { throw error("unexpected character ':'", at: start) }
            punct = .assign; length = 2
        default:
            let scalar = String(decoding: bytes[start..<(start + 1)], as: UTF8.self)
            throw error("unexpected character '\(scalar)'", at: start)
        }
        position += length
        tokens.append(Token(kind: .punct(punct), start: start, end: position))
    }
}
