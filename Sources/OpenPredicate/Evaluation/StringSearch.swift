/// `CONTAINS` between two strings, after `[c]`/`[d]` folding if any: Foundation's
/// `range(of:)` without options, written without Foundation, which traps on Linux for some
/// inputs (`"\u{1FEF}a".contains("a\u{0}")`, index out of range) and answers others wrongly
/// through `NSString` (true for that pair).
///
/// The rules, as Foundation answers them (measured with swift-corelibs-foundation over the
/// cases of `StringSearchTests`):
///
/// - Strings compare by **canonical equivalence**: `"e\u{301}x"` contains `"é"`, `"\u{212A}a"`
///   (Kelvin sign) contains `"K"`, `"xe\u{301}\u{323}"` contains `"e\u{323}\u{301}"`.
/// - The haystack is cut into **search clusters**: a scalar with its following combining marks
///   (`Grapheme_Extend`, emoji modifiers; a control character takes them too) and a run of
///   conjoining Hangul jamo (a precomposed syllable takes no jamo). A match is a run of whole
///   clusters, each canonically equivalent to the needle's cluster at the same place, so
///   `"e\u{301}"` does not contain `"e"`, `"ab\u{301}"` does not contain `"ab"`, and
///   `"\u{1100}\u{1161}"` (ᄀ ᅡ) does not contain `"\u{1100}"`.
/// - Unlike Swift's `Character`s, clusters are **not** joined across CR LF, regional indicators,
///   a zero-width joiner, prepended marks (`"\u{600}a"`) or spacing marks: `"a\r\nb"` contains
///   `"\n"`, as SQL's byte search answers; `"🇦🇨"` contains `"🇦"`; `"a\u{903}"` contains `"a"`.
/// - A needle that begins with a combining mark may match from any scalar of the haystack that
///   was spelled as such a mark (`"e\u{301}"` contains `"\u{301}"`), never from inside a
///   precomposed scalar (`"é"` does not contain `"\u{301}"`).
///
/// An ASCII needle is searched for byte by byte (a match then only needs the next scalar not
/// to be a mark; a haystack with a singleton of an ASCII character goes to the cluster search),
/// 20–30 ns for a short name, where Foundation's search takes 0.5–2 µs; other needles
/// take 1–3 µs, as Foundation's do. Worst case O(n·m) cluster comparisons; no input traps.
enum StringSearch {
    /// Whether `haystack` contains `needle` (false for an empty needle, as `NSString`'s search
    /// answers).
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        if needle.isEmpty { return false }
        var haystack = haystack
        var needle = needle
        let answer: Bool? = haystack.withUTF8 { text in
            needle.withUTF8 { pattern in asciiSearch(pattern, in: text) }
        }
        if let answer { return answer }
        if haystack.utf8.allSatisfy({ $0 < 0x80 }) {
            // An ASCII haystack has only ASCII clusters; a needle equivalent to some is made of
            // ASCII characters and singletons of them.
            var ascii = ""
            for scalar in needle.unicodeScalars {
                guard let character = asciiEquivalent(scalar) else { return false }
                ascii.unicodeScalars.append(character)
            }
            return contains(haystack, ascii)
        }
        return clusterSearch(haystack, needle)
    }

    /// The ASCII character `scalar` is canonically equivalent to, if any.
    private static func asciiEquivalent(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0..<0x80: scalar
        case 0x212A: "K"
        case 0x037E: ";"
        case 0x1FEF: "`"
        default: nil
        }
    }

    /// The answer for an ASCII needle, from the bytes; nil for a needle that is not ASCII or a
    /// haystack holding a canonical singleton of an ASCII character (K, `;`, `` ` ``), which the
    /// cluster search decides.
    ///
    /// A cluster canonically equivalent to one ASCII character is that character or one of
    /// those singletons (a cluster with marks is not), so otherwise the matches are the byte
    /// matches whose next scalar is not a mark (an ASCII byte always starts a cluster).
    @inline(__always)
    private static func asciiSearch(_ pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>) -> Bool? {
        var isASCII = true
        for byte in pattern where byte >= 0x80 {
            isASCII = false
            break
        }
        guard isASCII else { return nil }
        let first = pattern[0]
        var start = 0
        var found = false
        while start + pattern.count <= text.count {
            if text[start] == first {
                var index = 1
                while index < pattern.count, text[start + index] == pattern[index] { index += 1 }
                if index == pattern.count {
                    let end = start + pattern.count
                    if end == text.count || text[end] < 0xCC || !startsWithMark(text, at: end) {
                        found = true
                        break
                    }
                }
            }
            start += 1
        }
        if found { return true }
        // Without a byte match, only a singleton can match; look for their lead bytes.
        for byte in text where byte == 0xE2 || byte == 0xCD || byte == 0xE1 {
            return containsSingleton(text) ? nil : false
        }
        return false
    }

    /// Whether the scalar at `offset` (the first byte of one) joins the character before it.
    /// Scalars below U+0300 (lead bytes below 0xCC) never do.
    private static func startsWithMark(_ text: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        var iterator = text[offset...].makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return false }
        return isExtend(scalar)
    }

    /// Whether `text` holds U+212A (Kelvin sign, K), U+037E (Greek question mark, `;`) or
    /// U+1FEF (Greek varia, `` ` ``).
    private static func containsSingleton(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index + 1 < text.count {
            switch (text[index], text[index + 1]) {
            case (0xCD, 0xBE): return true
            case (0xE2, 0x84) where index + 2 < text.count && text[index + 2] == 0xAA: return true
            case (0xE1, 0xBF) where index + 2 < text.count && text[index + 2] == 0xAF: return true
            default: index += 1
            }
        }
        return false
    }

    /// `string` with every match of `target` (as `contains(_:_:)` finds them, left to right, not
    /// overlapping) replaced by `replacement`; unchanged for an empty target. What
    /// `stringByReplacingOccurrencesOfString:withString:` answers, without Foundation's trap.
    static func replacingOccurrences(in string: String, of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return string }
        let scalars = string.unicodeScalars
        let targetClusters: [Substring] = clusters(of: target.unicodeScalars)
        let hayClusters: [Range<String.Index>] = clusters(of: scalars)
        guard let firstTargetScalar = target.unicodeScalars.first else { return string }
        let startsInside = isExtend(firstTargetScalar) || isJamo(firstTargetScalar)
        var result = ""
        var copied = scalars.startIndex
        var clusterIndex = 0
        while clusterIndex < hayClusters.count {
            let cluster = hayClusters[clusterIndex]
            var start = cluster.lowerBound
            var matched = false
            while start < cluster.upperBound, start >= copied {
                if matches(targetClusters, in: hayClusters, from: clusterIndex, start: start, scalars) {
                    matched = true
                    break
                }
                guard startsInside else { break }
                scalars.formIndex(after: &start)
            }
            if matched {
                let last = clusterIndex + targetClusters.count - 1
                result.unicodeScalars.append(contentsOf: scalars[copied..<start])
                result += replacement
                copied = hayClusters[last].upperBound
                clusterIndex = last + 1
            } else {
                clusterIndex += 1
            }
        }
        result.unicodeScalars.append(contentsOf: scalars[copied...])
        return result
    }

    // MARK: - Clusters

    /// The search over clusters, for strings that are not both ASCII.
    private static func clusterSearch(_ haystack: String, _ needle: String) -> Bool {
        let scalars = haystack.unicodeScalars
        let needleScalars = needle.unicodeScalars
        let needleClusters: [Substring] = clusters(of: needleScalars)
        guard let firstNeedleScalar = needleScalars.first else { return false }
        let hayClusters: [Range<String.Index>] = clusters(of: scalars)
        // A needle that begins with a mark or a jamo that joins what precedes it may start
        // inside a cluster of the haystack, at a scalar spelled as such.
        let startsInside = isExtend(firstNeedleScalar) || isJamo(firstNeedleScalar)
        for (clusterIndex, cluster) in hayClusters.enumerated() {
            if matches(needleClusters, in: hayClusters, from: clusterIndex, start: cluster.lowerBound, scalars) {
                return true
            }
            guard startsInside else { continue }
            var inner = scalars.index(after: cluster.lowerBound)
            while inner < cluster.upperBound {
                if matches(needleClusters, in: hayClusters, from: clusterIndex, start: inner, scalars) { return true }
                scalars.formIndex(after: &inner)
            }
        }
        return false
    }

    /// Whether the needle's clusters equal the haystack's from cluster `index`, the first one
    /// taken from `start` (its own start, or a scalar inside it).
    private static func matches(
        _ needle: [Substring], in hay: [Range<String.Index>], from index: Int, start: String.Index,
        _ scalars: String.UnicodeScalarView
    ) -> Bool {
        guard hay.count - index >= needle.count else { return false }
        for offset in 0..<needle.count {
            let range = hay[index + offset]
            let lower = offset == 0 ? start : range.lowerBound
            if let expected = canonicalFirst(needle[offset].unicodeScalars.first),
                let actual = canonicalFirst(scalars[lower]), expected != actual
            {
                return false
            }
            let cluster = Substring(scalars[lower..<range.upperBound])
            // Swift's `==` on strings is canonical equivalence.
            if cluster != needle[offset] { return false }
        }
        return true
    }

    /// The first scalar of `scalar`'s canonical decomposition where it is cheap to know
    /// (Latin-1, Hangul, CJK ideographs), else nil. Clusters whose first scalars have different
    /// ones are not canonically equivalent, which spares most comparisons.
    @inline(__always)
    private static func canonicalFirst(_ scalar: Unicode.Scalar?) -> UInt32? {
        guard let value = scalar?.value else { return nil }
        switch value {
        case 0..<0xC0: return value
        case 0xC0...0xFF: return latin1Bases[Int(value - 0xC0)]
        case 0xAC00...0xD7A3: return 0x1100 + (value - 0xAC00) / 588
        case 0x1100...0x11FF, 0x4E00...0x9FFF: return value
        default: return nil
        }
    }

    /// U+00C0–U+00FF's decompositions' first scalars (À → A, ç → c, × → ×, …).
    private static let latin1Bases: [UInt32] = "AAAAAAÆCEEEEIIIIÐNOOOOO×ØUUUUYÞßaaaaaaæceeeeiiiiðnooooo÷øuuuuyþy"
        .unicodeScalars.map(\.value)

    private static func clusters(of scalars: String.UnicodeScalarView) -> [Range<String.Index>] {
        var result: [Range<String.Index>] = []
        var index = scalars.startIndex
        var clusterStart = index
        var previous: Unicode.Scalar?
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if let previous, !joins(previous, scalar) {
                result.append(clusterStart..<index)
                clusterStart = index
            }
            previous = scalar
            scalars.formIndex(after: &index)
        }
        if clusterStart < scalars.endIndex { result.append(clusterStart..<scalars.endIndex) }
        return result
    }

    private static func clusters(of scalars: String.UnicodeScalarView) -> [Substring] {
        let ranges: [Range<String.Index>] = clusters(of: scalars)
        return ranges.map { Substring(scalars[$0]) }
    }

    /// Whether `scalar` belongs to the cluster of the scalar before it, `previous`: marks
    /// always; conjoining jamo after jamo as Hangul syllables join (L × L V, V × V T, T × T).
    /// A precomposed syllable does not take a following jamo, as Foundation answers.
    @inline(__always)
    private static func joins(_ previous: Unicode.Scalar, _ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x300 { return false }
        if isExtend(scalar) { return true }
        switch (jamoKind(previous), jamoKind(scalar)) {
        case (.leading, .leading), (.leading, .vowel), (.vowel, .vowel), (.vowel, .trailing), (.trailing, .trailing):
            return true
        default:
            return false
        }
    }

    @inline(__always)
    private static func isExtend(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x300 && (scalar.properties.isGraphemeExtend || scalar.properties.isEmojiModifier)
    }

    private enum JamoKind { case leading, vowel, trailing, none }

    private static func isJamo(_ scalar: Unicode.Scalar) -> Bool { jamoKind(scalar) != .none }

    @inline(__always)
    private static func jamoKind(_ scalar: Unicode.Scalar) -> JamoKind {
        switch scalar.value {
        case 0x1100...0x115F, 0xA960...0xA97C: .leading
        case 0x1160...0x11A7, 0xD7B0...0xD7C6: .vowel
        case 0x11A8...0x11FF, 0xD7CB...0xD7FB: .trailing
        default: .none
        }
    }
}
