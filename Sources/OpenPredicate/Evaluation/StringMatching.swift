import Foundation

/// `LIKE` wildcards and `MATCHES` regular expressions.
enum StringMatching {
    /// `LIKE`: `*` matches zero or more characters, `?` exactly one, `\` escapes the next
    /// character; everything else is literal. Matches the whole string. Iterative, so long
    /// inputs cannot overflow the stack; worst case O(n·m).
    static func like(_ string: String, pattern: String) -> Bool {
        let text = Array(string)
        var tokens: [LikeToken] = []
        var iterator = pattern.makeIterator()
        while let character = iterator.next() {
            switch character {
            case "*": tokens.append(.star)
            case "?": tokens.append(.one)
            case "\\": tokens.append(.literal(iterator.next() ?? "\\"))
            default: tokens.append(.literal(character))
            }
        }
        var t = 0
        var p = 0
        var starToken = -1
        var starText = 0
        while t < text.count {
            if p < tokens.count {
                switch tokens[p] {
                case .star:
                    starToken = p
                    starText = t
                    p += 1
                    continue
                case .one:
                    t += 1
                    p += 1
                    continue
                case .literal(let character) where character == text[t]:
                    t += 1
                    p += 1
                    continue
                case .literal:
                    break
                }
            }
            guard starToken >= 0 else { return false }
            p = starToken + 1
            starText += 1
            t = starText
        }
        while p < tokens.count, case .star = tokens[p] { p += 1 }
        return p == tokens.count
    }

    private enum LikeToken {
        case star, one
        case literal(Character)
    }

    /// An ICU regular expression (Foundation's `NSRegularExpression`) that must match the whole
    /// string, as `MATCHES` does; when the pattern does not compile, ICU's complaint as
    /// Foundation reports it.
    static func regex(_ pattern: String, options: ComparisonOptions) -> Result<NSRegularExpression, InvalidPattern> {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        do {
            return .success(try NSRegularExpression(pattern: pattern, options: regexOptions))
        } catch {
            return .failure(InvalidPattern(reason: "\(error.localizedDescription)"))
        }
    }

    /// Why a `MATCHES` pattern does not compile.
    struct InvalidPattern: Error {
        let reason: String
    }

    /// `MATCHES` with its options: the last pattern compiled is kept for the next object (a
    /// constant pattern compiles once). A compiled predicate may be evaluated on several
    /// threads at once, hence the lock.
    ///
    /// A pattern that does not compile is an error, as Apple raises one: the evaluation's
    /// context records it (the throwing twins and fetches throw it, `evaluate(with:)` stops
    /// with Apple's exception), and the test answers false. Only a string tested against the
    /// pattern meets the error: a `nil` or a number is not matched at all, as in SQL, where the
    /// registered function is called for text only.
    final class Matcher: @unchecked Sendable {
        // @unchecked Sendable: `last` is behind `lock`; the options and the constant pattern are
        // set in `init`.

        private let options: ComparisonOptions
        private let folds: Bool
        private let lock = NSLock()
        private var last: (pattern: String, regex: Result<NSRegularExpression, InvalidPattern>)?
        /// A constant pattern, compiled once: read without the lock.
        private let constant: (pattern: String, regex: Result<NSRegularExpression, InvalidPattern>)?

        /// `constantPattern`: the pattern when it is a compile-time constant (a string), compiled
        /// here once.
        init(options: ComparisonOptions, constantPattern: Any? = nil) {
            self.options = options
            self.folds = options.contains(.diacriticInsensitive)
            if let pattern = ValueSemantics.string(constantPattern) {
                let folded = folds ? StringFolding.fold(pattern, options: options) : pattern
                constant = (folded, StringMatching.regex(folded, options: options))
            } else {
                constant = nil
            }
        }

        /// Whether `lhs` matches `rhs`, both strings; otherwise false. An invalid pattern is
        /// recorded in `context`.
        @inline(__always)
        func test(_ lhs: Any?, _ rhs: Any?, _ context: inout EvaluationContext) -> Bool {
            guard let s = ValueSemantics.string(lhs), let p = ValueSemantics.string(rhs) else { return false }
            switch matches(s, pattern: p) {
            case .success(let result): return result
            case .failure(let error):
                context.fail(error)
                return false
            }
        }

        /// Whether `string` matches `pattern`, or the error an invalid pattern is.
        func matches(_ string: String, pattern: String) -> Result<Bool, EvaluationError> {
            let pattern = folds ? StringFolding.fold(pattern, options: options) : pattern
            switch regex(for: pattern) {
            case .success(let regex):
                let subject = folds ? StringFolding.fold(string, options: options) : string
                return .success(StringMatching.matches(subject, regex: regex))
            case .failure(let invalid):
                return .failure(.invalidRegex(pattern: pattern, string: string, reason: invalid.reason))
            }
        }

        private func regex(for pattern: String) -> Result<NSRegularExpression, InvalidPattern> {
            if let constant, constant.pattern == pattern { return constant.regex }
            lock.lock()
            defer { lock.unlock() }
            if let last, last.pattern == pattern { return last.regex }
            let regex = StringMatching.regex(pattern, options: options)
            last = (pattern, regex)
            return regex
        }
    }

    static func matches(_ string: String, regex: NSRegularExpression) -> Bool {
        let range = NSRange(string.startIndex..., in: string)
        guard let match = regex.firstMatch(in: string, options: [.anchored], range: range) else { return false }
        return match.range.location == 0 && match.range.length == range.length
            || wholeMatch(string, regex: regex, range: range)
    }

    /// A regex may find a shorter anchored match first (`a|ab` on "ab"); look for one that spans
    /// the whole string.
    private static func wholeMatch(_ string: String, regex: NSRegularExpression, range: NSRange) -> Bool {
        guard let anchored = try? NSRegularExpression(pattern: "(?:" + regex.pattern + ")\\z", options: regex.options) else {
            return false
        }
        guard let match = anchored.firstMatch(in: string, options: [.anchored], range: range) else { return false }
        return match.range.length == range.length
    }
}
