@testable import OpenPredicate

/// Runs `body` on a new thread with a 512 KiB stack (a typical secondary-thread size) and
/// returns what it returned; the caller waits. Used to prove deep input cannot overflow a
/// small stack.
func onSmallStackThread<T>(_ body: @escaping @Sendable () -> T) -> T? {
    let box = SmallStackResult<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body()
        done.signal()
    }
    thread.stackSize = 512 * 1024
    thread.start()
    done.wait()
    return box.value
}

/// Carries the result back; the caller reads it only after the thread signalled.
private final class SmallStackResult<T>: @unchecked Sendable {
    var value: T?
}
