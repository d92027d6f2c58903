import Foundation

/// Case and diacritic folding for the `[c]` and `[d]` options, Unicode-correct
/// (`"Crèpes" BEGINSWITH[cd] "crepes"`), with an ASCII fast path.
enum StringFolding {
    /// `s` with case folded (`[c]`) and/or diacritics removed (`[d]`), by Foundation's
    /// locale-independent folding; ASCII strings take a byte-level path.
    static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        if !caseInsensitive && !diacriticInsensitive { return s }
        if let ascii = asciiFold(s, caseInsensitive: caseInsensitive) { return ascii }
        // Foundation's folding is Unicode case folding (not just lower-casing: "Straße" and
        // "STRASSE" fold alike, as Apple's [c] compares them), independent of the locale.
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return s.folding(options: options, locale: nil)
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
