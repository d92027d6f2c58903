/// The limits the format-string parser enforces, each with the reason it exists.
///
/// Every limit is checked before the work it bounds, so hostile input fails with a
/// `PredicateSyntaxError` instead of exhausting the stack, memory or time.
enum ParserLimits {
    /// Deepest nesting of parentheses, braces, brackets, function calls, `NOT`, unary minus and
    /// binary-operator chains, counted together.
    ///
    /// The parser is recursive descent and the trees it builds are destroyed, compared, hashed and
    /// printed recursively, so depth turns into stack. A parse of 500 nested parentheses uses
    /// about 1 frame pair (predicate + expression) per level; measured in a debug build this
    /// stays well under 512 KiB (the default stack of a secondary thread on Darwin), leaving
    /// room for the caller and for the later recursive passes over the tree.
    static let maxNestingDepth = 500

    /// Longest format string accepted, in UTF-8 bytes (64 MiB).
    ///
    /// The lexer keeps the bytes and a token array in memory; this bounds that memory. Parsing is
    /// linear, so anything under the limit parses in time proportional to its length.
    static let maxFormatLength = 64 << 20

    /// Most elements in one `{…}` aggregate or argument list.
    ///
    /// Each element becomes a tree node; this keeps one literal from allocating without bound.
    static let maxAggregateElements = 1_000_000
}
