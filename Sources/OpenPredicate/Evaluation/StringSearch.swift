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
///   (`Grapheme_Extend`, emoji modifiers) and a run of conjoining Hangul jamo. A match is a run
///   of whole clusters, each canonically equivalent to the needle's cluster at the same place,
///   so `"e\u{301}"` does not contain `"e"`, `"ab\u{301}"` does not contain `"ab"`, and
///   `"\u{1100}\u{1161}"` (ᄀ ᅡ) does not contain `"\u{1100}"`.
/// - Unlike Swift's `Character`s, clusters are **not** joined across CR LF, regional indicators,
///   a zero-width joiner, prepended marks (`"\u{600}a"`) or spacing marks: `"a\r\nb"` contains
///   `"\n"`, as SQL's byte search answers; `"🇦🇨"` contains `"🇦"`; `"a\u{903}"` contains `"a"`.
/// - A needle that begins with a combining mark may match from any scalar of the haystack that
///   was spelled as such a mark (`"e\u{301}"` contains `"\u{301}"`), never from inside a
///   precomposed scalar (`"é"` does not contain `"\u{301}"`).
///
/// ASCII strings, where none of this can happen, are searched byte by byte. Worst case
/// O(n·m) cluster comparisons, and no input traps.
enum StringSearch {
    /// Whether `haystack` contains `needle` (false for an empty needle, as `NSString`'s search
    /// answers).
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        if needle.isEmpty { return false }
        var haystack = haystack
        var needle = needle
        let ascii: Bool? = haystack.withUTF8 { text in
            needle.withUTF8 { pattern -> Bool? in
                // An ASCII needle in any haystack: a byte match whose next byte is ASCII (no mark
                // can follow) is a match of clusters; other candidates need the cluster search.
                guard pattern.allSatisfy({ $0 < 0x80 }) else { return nil }
                var sawNonASCII = false
                var start = 0
                let first = pattern[0]
                while start + pattern.count <= text.count {
                    let byte = text[start]
                    if byte >= 0x80 { sawNonASCII = true }
                    if byte == first {
                        var index = 1
                        while index < pattern.count, text[start + index] == pattern[index] { index += 1 }
                        if index == pattern.count {
                            let end = start + pattern.count
                            if end == text.count || text[end] < 0x80 { return true }
                        }
                    }
                    start += 1
                }
                if !sawNonASCII {
                    var index = start
                    while index < text.count, !sawNonASCII {
                        sawNonASCII = text[index] >= 0x80
                        index += 1
                    }
                }
                // An ASCII haystack has no other matches.
                return sawNonASCII ? nil : false
            }
        }
        if let ascii { return ascii }
        return clusterSearch(haystack, needle)
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
            let cluster = Substring(scalars[lower..<range.upperBound])
            // Swift's `==` on strings is canonical equivalence.
            if cluster != needle[offset] { return false }
        }
        return true
    }

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
