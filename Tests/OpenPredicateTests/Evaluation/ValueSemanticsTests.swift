import Testing
@testable import OpenPredicate

@Suite struct ValueSemanticsTests {
    @Test(arguments: [
        (Int8(3) as Any, 3.0 as Any),
        (Int32(3), Decimal(3)),
        (UInt64(3), NSNumber(value: 3)),
        (Float(2.5), 2.5),
        (true, 1),
        (NSDecimalNumber(string: "1.5"), 1.5),
    ] as [(Any, Any)])
    func numbersOfAnyWidthAreEqualByValue(lhs: Any, rhs: Any) {
        #expect(ValueSemantics.isEqual(lhs, rhs))
        #expect(ValueSemantics.compare(lhs, rhs) == .orderedSame)
        var a = Hasher(), b = Hasher()
        ValueSemantics.hash(lhs, into: &a)
        ValueSemantics.hash(rhs, into: &b)
        #expect(a.finalize() == b.finalize())
    }

    @Test func orderingAcrossTypes() {
        #expect(ValueSemantics.compare(2, 2.5) == .orderedAscending)
        #expect(ValueSemantics.compare(Decimal(string: "10.01"), 10) == .orderedDescending)
        #expect(ValueSemantics.compare("Aa", "ab") == .orderedAscending)
        #expect(ValueSemantics.compare(Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 4)) == .orderedDescending)
        // No common order: a number and a string, or anything with nil.
        #expect(ValueSemantics.compare(2, "2") == nil)
        #expect(ValueSemantics.compare(nil, 1) == nil)
        #expect(ValueSemantics.compare(NSNull(), NSNull()) == nil)
    }

    @Test func nilAndNSNullAreEqualToEachOtherOnly() {
        #expect(ValueSemantics.isEqual(nil, NSNull()))
        #expect(ValueSemantics.isEqual(Optional<Int>.none as Any, nil))
        #expect(!ValueSemantics.isEqual(nil, 0))
        #expect(!ValueSemantics.isEqual("", nil))
        #expect(!ValueSemantics.isEqual(2, "2"))
    }

    @Test func optionalsInsideAnyAreUnwrapped() {
        let wrapped: Any = Optional(Optional(5))
        #expect(ValueSemantics.unwrapOptional(wrapped) as? Int == 5)
        #expect(ValueSemantics.isEqual(wrapped, 5))
    }

    @Test func collectionsCompareByElements() {
        #expect(ValueSemantics.isEqual([1, 2], [1.0, 2.0]))
        #expect(!ValueSemantics.isEqual([1, 2], [2, 1]))
        #expect(ValueSemantics.isEqual(Set([1, 2]), Set([2, 1])))
        #expect(!ValueSemantics.isEqual(Set([1, 2]), [1, 2]))
    }
}

@Suite struct StringFoldingTests {
    @Test(arguments: [
        ("Crèpes", "crepes"),
        ("ÉCOLE", "ecole"),
        ("Straße", "strasse"),
        ("STRASSE", "strasse"),
        ("ABC", "abc"),
        ("naïve café", "naive cafe"),
    ])
    func caseAndDiacriticFolding(input: String, folded: String) {
        #expect(StringFolding.fold(input, caseInsensitive: true, diacriticInsensitive: true) == folded)
    }

    @Test func caseAndDiacriticPrefixFoldsOnlyTheHead() {
        let options: ComparisonOptions = [.caseInsensitive, .diacriticInsensitive]
        let cases: [(String, String, Bool)] = [
            ("Ångström", "a", true), ("Ångström", "angst", true), ("Crèpes", "crepes", true), ("Crèpes", "crepesx", false),
            // A mark with nothing to combine with is not a diacritic of anything; it stays.
            ("\u{301}abc", "abc", false), ("\u{301}\u{301}\u{301}abc", "ab", false),
        ]
        for (text, prefix, expected) in cases {
            let needle = StringFolding.fold(prefix, options: options)
            #expect(ComparisonTest.foldedHasPrefix(text, needle, options: options) == expected, "\(text) BEGINSWITH[cd] \(prefix)")
            #expect(StringFolding.fold(text, options: options).hasPrefix(needle) == expected, "full fold agrees for \(text)")
        }
    }

    /// Our fast case folding agrees with Foundation's locale-independent folding.
    @Test(arguments: ["Straße", "STRASSE", "ẞ", "Ångström", "ﬀ", "ſ", "ΣΊΣΥΦΟΣ", "σίσυφος", "İstanbul", "\u{212A}elvin",
                      "Ǆemal", "ǅ", "ÉCOLE", "ﬁne", "ŉ", "ΐ", "Jürgens"])
    func caseFoldingMatchesFoundation(text: String) {
        #expect(StringFolding.caseFold(text) == text.folding(options: .caseInsensitive, locale: nil))
        #expect(StringFolding.caseFold(text) == StringFolding.caseFold(StringFolding.caseFold(text)))
    }

    @Test func caseOnlyKeepsDiacritics() {
        #expect(StringFolding.fold("Crèpes", caseInsensitive: true, diacriticInsensitive: false) == "crèpes")
        #expect(StringFolding.fold("Crèpes", caseInsensitive: false, diacriticInsensitive: true) == "Crepes")
        #expect(StringFolding.fold("Crèpes", caseInsensitive: false, diacriticInsensitive: false) == "Crèpes")
    }

    @Test func asciiFastPrefixAgreesWithFullFolding() {
        let options: ComparisonOptions = [.caseInsensitive]
        let cases: [(String, String, Bool)] = [
            ("Jones", "j", true), ("jones", "jo", true), ("Ito", "j", false), ("J", "jo", false),
            ("Jéan", "je", false), ("JÉAN", "jé", true), ("e\u{301}x", "e", false), ("", "", true), ("abc", "", true),
            ("Jürgens", "j", true), ("Jürgens", "jü", true), ("Jürgens", "ju", false), ("Ångström", "å", true),
            ("Ångström", "a", false), ("J\u{301}x", "j", false), ("\u{212A}elvin", "k", true),
        ]
        for (text, prefix, expected) in cases {
            let needle = StringFolding.fold(prefix, options: options)
            #expect(ComparisonTest.foldedHasPrefix(text, needle, options: options) == expected, "\(text) BEGINSWITH[c] \(prefix)")
        }
    }
}

@Suite struct StringMatchingTests {
    @Test(arguments: [
        ("hello", "hel*o", true), ("heo", "hel*o", false), ("helllo", "hel*o", true),
        ("helo", "hel?o", false), ("hello", "hel?o", true), ("helllo", "hel?o", false),
        ("test.foo", "test*.foo", true), ("atestp.foo", "test*.foo", false), ("a*b", "a\\*b", true),
        ("axb", "a\\*b", false), ("", "*", true), ("", "?", false), ("aaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*b", true),
    ])
    func likeWildcards(text: String, pattern: String, expected: Bool) {
        #expect(StringMatching.like(text, pattern: pattern) == expected)
    }

    @Test func matchesIsWholeString() throws {
        let regex = try StringMatching.regex("hel{2}o", options: []).get()
        #expect(StringMatching.matches("hello", regex: regex))
        #expect(!StringMatching.matches("hello!", regex: regex))
        let alternation = try StringMatching.regex("a|ab", options: []).get()
        #expect(StringMatching.matches("ab", regex: alternation))
        #expect(throws: StringMatching.InvalidPattern.self) { try StringMatching.regex("(unclosed", options: []).get() }
    }
}
