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
    /// string, as `MATCHES` does. Nil when the pattern does not compile.
    static func regex(_ pattern: String, options: ComparisonOptions) -> NSRegularExpression? {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        return try? NSRegularExpression(pattern: pattern, options: regexOptions)
    }

    /// The last pattern a `MATCHES` compiled, kept for the next object. A compiled predicate may
    /// be evaluated on several threads at once, hence the lock.
    final class RegexCache: @unchecked Sendable {
        private let options: ComparisonOptions
        private let lock = NSLock()
        private var last: (pattern: String, regex: NSRegularExpression?)?

        init(options: ComparisonOptions) {
            self.options = options
        }

        func regex(for pattern: String) -> NSRegularExpression? {
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
