import Foundation

/// A format string that does not parse: the string, where, and why.
///
/// Turned into an `NSError` in `NSCocoaErrorDomain` (code `NSFormattingError`) by the throwing
/// initializers; its `message` starts like Apple's exception reason,
/// `Unable to parse the format string "…"`.
struct PredicateSyntaxError: Error, CustomStringConvertible {
    /// The whole format string.
    let format: String
    /// UTF-8 offset of the problem in `format`.
    let offset: Int
    /// What is wrong (`expected ')'`, `unknown function 'foo:'`, …).
    let reason: String

    /// 1-based line and column (in characters) of `offset`.
    var lineAndColumn: (line: Int, column: Int) {
        var line = 1
        var column = 1
        var utf8Offset = 0
        for character in format {
            if utf8Offset >= offset { break }
            utf8Offset += character.utf8.count
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }

    /// `Unable to parse the format string "…" at line 1, column 9: expected ')'`, with the
    /// string shortened to 200 characters around the position if it is long.
    var message: String {
        let (line, column) = lineAndColumn
        return "Unable to parse the format string \"\(Self.excerpt(of: format, around: offset))\" "
            + "at line \(line), column \(column): \(reason)"
    }

    var description: String { message }

    /// The format string, or a window of it around `offset` when it is longer than 200 characters.
    static func excerpt(of format: String, around offset: Int) -> String {
        let utf8 = Array(format.utf8)
        guard utf8.count > 200 else { return format }
        let start = max(0, min(offset, utf8.count) - 100)
        let end = min(utf8.count, start + 200)
        let window = String(decoding: utf8[start..<end], as: UTF8.self)
        return (start > 0 ? "…" : "") + window + (end < utf8.count ? "…" : "")
    }

    /// The `NSError` the throwing initializers throw.
    var nsError: NSError {
        let (line, column) = lineAndColumn
        return NSError(
            domain: NSCocoaErrorDomain,
            code: NSFormattingError,
            userInfo: [
                NSLocalizedDescriptionKey: message,
                NSDebugDescriptionErrorKey: message,
                "NSPredicateFormat": format,
                "NSPredicateFormatOffset": offset,
                "NSPredicateFormatLine": line,
                "NSPredicateFormatColumn": column,
            ])
    }
}
