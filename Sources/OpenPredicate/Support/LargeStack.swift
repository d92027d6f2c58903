import Foundation

/// Runs recursive work on a helper thread with a large stack, so deep (but legal) trees cannot
/// overflow the caller's stack, whatever its size (secondary threads often have 512 KiB).
enum LargeStack {
    /// Stack of the helper thread: 500 levels at the measured worst case (~20 KiB per level in a
    /// debug build) is ~10 MiB; 32 MiB leaves a wide margin. The memory is reserved, not
    /// committed, so the margin costs nothing.
    static let stackSize = 32 << 20

    /// `body()`, computed on a thread with `stackSize` of stack; the caller waits for it.
    static func run<T>(_ body: () -> T) -> T {
        let box = ResultBox<T>()
        withoutActuallyEscaping(body) { escapableBody in
            box.body = escapableBody
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                box.run()
                done.signal()
            }
            thread.stackSize = stackSize
            thread.start()
            done.wait()
            // The thread may still hold its closure; drop our reference to `body` before
            // `withoutActuallyEscaping` checks that it did not escape.
            box.body = nil
        }
        // The thread ran `run()` before `signal()`, so the result is set; were it not, computing
        // here is still correct, only without the larger stack.
        return box.result ?? body()
    }

    /// Carries the work to the helper thread and its result back; only one thread touches it at
    /// a time (the caller waits on a semaphore), hence `@unchecked Sendable`.
    private final class ResultBox<T>: @unchecked Sendable {
        var body: (() -> T)?
        var result: T?

        func run() {
            result = body?()
        }
    }
}

/// A tree whose recursive work (printing, comparing, hashing, compiling) moves to `LargeStack`
/// when it is deep.
protocol NestedTree: Hashable {
    /// Whether the tree nests more than `limit` levels (looking no deeper than that).
    func isDeeper(than limit: Int) -> Bool
}

extension NestedTree {
    /// `body()` on this thread for a tree up to `TreeRecursion.inlineDepth` deep, through
    /// `LargeStack` for a deeper one.
    func onEnoughStack<T>(_ body: () -> T) -> T {
        isDeeper(than: TreeRecursion.inlineDepth) ? LargeStack.run(body) : body()
    }

    /// `==` that cannot overflow the stack on deep trees.
    func isEqualOnAnyStack(to other: Self) -> Bool {
        onEnoughStack { self == other }
    }

    /// `hashValue` that cannot overflow the stack on deep trees.
    var hashValueOnAnyStack: Int {
        onEnoughStack { hashValue }
    }
}

extension PredicateNode: NestedTree {}
extension ExpressionNode: NestedTree {}
