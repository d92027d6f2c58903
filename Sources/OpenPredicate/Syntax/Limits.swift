/// The limits the format-string parser enforces, each with the reason it exists.
///
/// Every limit is checked before the work it bounds, so hostile input fails with a
/// `PredicateSyntaxError` instead of exhausting the stack, memory or time.
enum ParserLimits {
    /// Deepest nesting of parentheses, braces, brackets, function calls, `NOT`, unary minus and
    /// binary-operator chains, counted together.
    ///
    /// The parser is recursive descent and the trees it builds are destroyed, compared, hashed and
    /// printed recursively, so depth turns into stack. Measured on x86-64 Linux, parsing costs
    /// about 2 KiB of stack per level of parentheses in a release build and up to 20 KiB in a
    /// debug build, which is why deep formats are parsed on a helper thread (see
    /// `maxInlineBracketDepth`). Measured in a debug build on the caller's thread for 500-deep
    /// trees: parsing plus destroying fits 256 KiB (tested on 512 KiB by
    /// `deepestNestingFitsA512KiBStack`), `==`/hashing 512 KiB, printing up to 1 MiB for
    /// 500 nested function calls (release builds need a fraction of that).
    static let maxNestingDepth = 500

    /// Formats whose `(`/`[`/`{` nesting is at most this deep are parsed on the caller's thread;
    /// deeper ones on a helper thread with `LargeStack.stackSize` of stack. 8 levels cost at most
    /// ~160 KiB even in a debug build, safe on a 512 KiB secondary thread; almost every real
    /// format is shallower, so the helper thread (tens of microseconds) is rarely paid for.
    static let maxInlineBracketDepth = 8

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

/// The limits keyed archiving enforces, each with the reason it exists.
enum ArchiveLimits {
    /// Deepest nesting of predicate, expression and operator objects in an archive, counted
    /// together (a comparison, its left expression and that expression's argument are three).
    ///
    /// Unarchiving is recursive (corelibs' `NSKeyedUnarchiver` decodes an object's children inside
    /// its `init?(coder:)`), and an archive can be made to refer to itself, so without a limit a
    /// hostile archive recurses until the stack overflows. Every tree the parser accepts fits:
    /// a level of `ParserLimits.maxNestingDepth` makes at most five objects (in
    /// `SUBQUERY(…, $x, … OR … AND X.@count > 0)`: the subquery, the OR, the AND, the comparison
    /// and the key path; `AND`, `OR`, comparisons and key paths are not counted by the parser).
    /// Archiving a deeper tree, which only the API can build, fails the same way, so every
    /// archive written can be read.
    static let maxDepth = 6 * ParserLimits.maxNestingDepth

    /// Levels of objects archived or unarchived on one `LargeStack` thread before the work moves
    /// to a fresh one. Measured in a debug build, a level costs up to ~13 KiB of stack when
    /// unarchiving (~6 KiB archiving), so 1 000 levels use well under half of
    /// `LargeStack.stackSize`.
    static let levelsPerStack = 1_000
}
