import Foundation
import Testing
@testable import OpenPredicate

/// `StringSearch`: `CONTAINS` with Foundation's answers (measured with swift-corelibs-foundation's
/// `String.contains(_:)` on these very pairs), without its traps.
@Suite struct StringSearchTests {
    /// (haystack, needle, Foundation's answer).
    static let foundationAnswers: [(String, String, Bool)] = [
        // ASCII, CR LF not joined (SQL's byte search agrees).
        ("hello", "ll", true), ("hello", "lo!", false), ("a\r\nb", "\n", true), ("a\r\nb", "\r", true),
        ("a\r\nb", "\r\n", true), ("x\r\n", "x\r", true), ("x\r\nb", "\nb", true), ("x\r", "x\r", true),
        // Canonical equivalence; a match does not end before a combining mark.
        ("e\u{301}", "e", false), ("e\u{301}x", "e", false), ("\u{E9}x", "e", false), ("\u{E9}x", "e\u{301}", true),
        ("e\u{301}x", "\u{E9}", true), ("ab\u{301}", "ab", false), ("ab\u{301}", "b", false), ("Ka\u{301}", "Ka", false),
        ("a\u{301}\u{302}", "a\u{301}", false), ("a\u{302}\u{301}x", "a\u{301}", false), ("\u{1EAD}", "a\u{302}", false),
        ("xe\u{301}\u{323}", "e\u{323}\u{301}", true), ("xe\u{323}\u{301}", "e\u{301}\u{323}", true),
        ("x\u{1EB9}\u{301}", "e\u{323}", false), ("x\u{1EB9}\u{301}", "e\u{323}\u{301}", true),
        ("x\u{E9}\u{323}", "e\u{323}", false), ("x\u{E9}\u{323}", "e\u{323}\u{301}", true),
        // A needle that begins with a mark matches a mark spelled as such, not one inside a
        // precomposed character.
        ("e\u{301}", "\u{301}", true), ("e\u{301}x", "\u{301}x", true), ("\u{E9}", "\u{301}", false),
        ("\u{E9}x", "\u{301}x", false), ("x\u{E9}\u{323}", "\u{323}", true), ("x\u{E9}\u{323}", "\u{323}\u{301}", false),
        ("x\u{E9}\u{323}", "\u{301}", false), ("\u{301}", "\u{301}", true),
        // Canonical singletons.
        ("\u{212A}a", "K", true), ("Ka", "\u{212A}", true), ("K\u{212A}", "KK", true), ("\u{1FEF}a", "`a", true),
        ("\u{1FEF}a", "a", true), ("x\u{037E}y", ";", true), ("x;y", "\u{037E}", true), ("\u{F900}", "\u{8C48}", true),
        ("\u{2126}", "\u{3A9}", true), ("\u{3A9}", "\u{2126}", true),
        // What joins the character before it (Grapheme_Extend, emoji modifiers) and what does
        // not (spacing marks, ZWJ, prepended marks, regional indicators).
        ("a\u{20DD}", "a", false), ("a\u{FE0F}", "a", false), ("a\u{0E31}", "a", false), ("a\u{1F3FB}", "a", false),
        ("a\u{200C}", "a", false), ("a\u{FF9E}", "a", false), ("a\u{0345}", "a", false), ("a\u{0903}", "a", true),
        ("a\u{093F}", "a", true), ("ab\u{200D}", "ab", true), ("ab\u{200D}", "b", true), ("\u{600}ab", "ab", true),
        ("\u{600}ab", "a", true), ("🇦🇨", "\u{1F1E6}", true), ("🇦🇨", "\u{1F1E8}", true), ("\u{0F73}", "\u{0F71}", false),
        ("\u{1E0A}\u{323}", "D\u{323}", false), ("\u{1E0C}\u{307}", "D\u{323}", false),
        // Hangul: jamo join jamo; a precomposed syllable does not take a following jamo.
        ("\u{AC00}", "\u{1100}", false), ("\u{1100}\u{1161}", "\u{AC00}", true), ("\u{AC00}", "\u{1161}", false),
        ("\u{1100}\u{1161}", "\u{1100}", false), ("\u{1100}\u{1161}", "\u{1161}", true), ("\u{AC01}", "\u{AC00}", false),
        ("\u{AC00}\u{11A8}", "\u{AC00}", true), ("\u{AC01}", "\u{11A8}", false), ("\u{1100}\u{1161}\u{11A8}", "\u{AC00}", false),
        ("\u{AC00}", "\u{AC00}", true),
        // Marks join a control character too (Swift's `Character`s break after one).
        ("x\u{0}\u{301}", "\u{0}", false), ("\n\u{301}", "\n", false), ("a\t\u{301}", "a\t", false),
        ("\u{7F}\u{301}", "\u{7F}", false), ("\u{301}y", "\u{301}y", true),
        // NUL is a character like any other.
        ("a\u{0}b", "\u{0}", true), ("a\u{0}b", "a\u{0}b", true), ("\u{0}", "\u{0}", true), ("\u{1FEF}a", "\u{0}", false),
        // The empty needle is found nowhere, as NSString's search answers.
        ("abc", "", false), ("", "", false), ("", "a", false),
    ]

    @Test func foundationsAnswers() {
        for (haystack, needle, expected) in Self.foundationAnswers {
            #expect(
                StringSearch.contains(haystack, needle) == expected,
                "\(haystack.unicodeScalars.map(\.value)) CONTAINS \(needle.unicodeScalars.map(\.value))")
        }
    }

    /// The pair that trapped Foundation's `String.contains` (and that `NSString` answers true
    /// to), and its neighbours, through the predicate engine: every path answers false.
    @Test func inputsThatTrappedFoundation() throws {
        #expect(!StringSearch.contains("\u{1FEF}a", "a\u{0}"))
        #expect(!StringSearch.contains("xa", "a\u{0}"))
        let object = ["name": "\u{1FEF}a"]
        for format in ["name CONTAINS %@", "name CONTAINS[c] %@", "name CONTAINS[d] %@", "name CONTAINS[cd] %@"] {
            #expect(!NSPredicate(format: format, "a\u{0}").evaluate(with: object), "\(format)")
            // The general test (a key path on the right).
            #expect(!NSPredicate(format: format.replacingOccurrences(of: "%@", with: "other")).evaluate(
                with: ["name": "\u{1FEF}a", "other": "a\u{0}"]))
        }
        #expect(NSPredicate(format: "name CONTAINS %@", "`a").evaluate(with: object))
    }

    /// `FUNCTION(s, 'stringByReplacingOccurrencesOfString:withString:', …)` used Foundation's
    /// `replacingOccurrences`, which traps for a needle with a NUL.
    @Test func replacingOccurrences() throws {
        let cases: [(String, String, String, String)] = [
            ("toto", "o", "a", "tata"), ("xa", "a\u{0}", "y", "xa"), ("\u{1FEF}a", "a\u{0}", "y", "\u{1FEF}a"),
            ("a\u{0}b", "\u{0}", "-", "a-b"), ("e\u{301}e", "e", "x", "e\u{301}x"), ("\u{212A}K", "K", "k", "kk"),
            ("aaa", "aa", "b", "ba"), ("abc", "", "x", "abc"), ("a\r\nb", "\n", "N", "a\rNb"), ("e\u{301}", "\u{301}", "", "e"),
        ]
        for (string, target, replacement, expected) in cases {
            #expect(StringSearch.replacingOccurrences(in: string, of: target, with: replacement) == expected)
        }
        let expression = NSExpression(
            format: "FUNCTION(name, 'stringByReplacingOccurrencesOfString:withString:', %@, 'y')", "a\u{0}")
        #expect(expression.expressionValue(with: ["name": "xa"], context: nil) as? String == "xa")
    }

    /// Random strings over scalars chosen to meet every rule: the search never traps and agrees
    /// with Swift's canonical equivalence where the two must agree (a needle of whole
    /// characters found at character boundaries of the haystack, without CR LF).
    @Test func randomStringsAgreeWithCharacterSearch() {
        let alphabet: [Unicode.Scalar] = [
            "a", "e", "K", "`", "\u{0}", "\u{301}", "\u{323}", "\u{E9}", "\u{212A}", "\u{1FEF}", "\u{1100}", "\u{1161}",
            "\u{11A8}", "\u{AC00}", "\u{200D}", "\u{1F1E6}", "\u{903}",
        ]
        var generator = SystemRandomNumberGenerator()
        func randomString(_ maximum: Int) -> String {
            var string = ""
            for _ in 0..<Int.random(in: 0...maximum, using: &generator) {
                string.unicodeScalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
            }
            return string
        }
        for _ in 0..<3000 {
            let haystack = randomString(8)
            let needle = randomString(3)
            let found = StringSearch.contains(haystack, needle)
            // Whole characters of the haystack are found (but for a NUL, which takes a
            // following mark in Foundation's search and not in Swift's characters).
            let characters = Array(haystack)
            if !characters.isEmpty, !haystack.unicodeScalars.contains("\u{0}") {
                let lower = Int.random(in: 0..<characters.count, using: &generator)
                let upper = Int.random(in: lower..<characters.count, using: &generator) + 1
                let slice = String(characters[lower..<upper])
                if slice.unicodeScalars.first.map({ !$0.properties.isGraphemeExtend }) ?? false,
                    !slice.unicodeScalars.contains(where: { (0x1100...0x11FF).contains($0.value) })
                {
                    #expect(StringSearch.contains(haystack, slice), "\(haystack.unicodeScalars.map(\.value))")
                }
            }
            // A needle that is found is canonically equivalent to a run of the haystack's scalars.
            if found {
                let scalars = Array(haystack.unicodeScalars)
                var equivalent = false
                for lower in 0..<scalars.count where !equivalent {
                    for upper in lower..<scalars.count {
                        var run = ""
                        run.unicodeScalars.append(contentsOf: scalars[lower...upper])
                        if run == needle { equivalent = true }
                    }
                }
                #expect(equivalent, "\(haystack.unicodeScalars.map(\.value)) \(needle.unicodeScalars.map(\.value))")
            }
        }
    }
}
