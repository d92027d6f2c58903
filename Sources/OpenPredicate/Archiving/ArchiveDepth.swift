import Foundation

/// How deep the archiver or unarchiver is in a tree of predicate and expression objects.
///
/// The coder calls each object's `encode(with:)` or `init?(coder:)` from inside its parent's, so
/// the depth is carried in a task-local value (it works on plain threads too) rather than in the
/// coder, which has no room for it. Past `ArchiveLimits.maxDepth` the object fails instead of
/// recursing; at `TreeRecursion.inlineDepth` the rest of the tree moves to `LargeStack` (and to
/// a fresh one every `ArchiveLimits.levelsPerStack` levels), so deep archives cannot overflow a
/// small thread's stack.
enum ArchiveDepth {
    @TaskLocal private static var level = 0

    /// `body()` one level deeper, or `ArchivingError.tooDeep` past the limit.
    static func nested<T>(
        _ direction: ArchivingError.Direction, _ body: () throws(ArchivingError) -> T
    ) throws(ArchivingError) -> T {
        let depth = level + 1
        guard depth <= ArchiveLimits.maxDepth else { throw .tooDeep(direction) }
        func run() -> Result<T, ArchivingError> {
            $level.withValue(depth) {
                Result { () throws(ArchivingError) -> T in try body() }
            }
        }
        let onNewStack =
            depth >= TreeRecursion.inlineDepth
            && (depth - TreeRecursion.inlineDepth) % ArchiveLimits.levelsPerStack == 0
        let result = onNewStack ? LargeStack.run(run) : run()
        return try result.get()
    }
}
