/// The bytes of the text and blob values a statement has bound since its last reset, kept for
/// SQLite to read in place (`SQLITE_STATIC`).
///
/// Bound with `SQLITE_TRANSIENT`, SQLite copies each value into an allocation of its own and
/// frees it at the next bind of that parameter: about 700 instructions per string, which was a
/// tenth of a save's per-object cost. Here the bytes are copied into one buffer the statement
/// keeps between runs, at the cost of the copy alone.
///
/// The rule that keeps it safe: `reuse()` only when no binding refers to the bytes any more
/// (the bindings cleared) or every one is bound again before the statement steps (see
/// `SQLiteStatement.reset(clearingBindings:)`). The buffer is never moved while bytes are in use;
/// a value that does not fit is left to SQLite to copy (`copy(_:)` returns nil), and the buffer
/// grows to what the run wanted at its next `reuse()`, up to `maximumCapacity`.
struct BoundBytes: ~Copyable {
    /// The largest buffer kept: values beyond it (a run binding more) are copied by SQLite.
    static let maximumCapacity = 32 * 1024
    /// The first buffer's size.
    static let initialCapacity = 1024

    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// Bytes in use since the last `reuse()`.
    private var used = 0
    /// Bytes asked for since the last `reuse()`, kept or not.
    private var wanted = 0

    init() {}

    deinit { buffer.deallocate() }

    /// A copy of `bytes` that stays until the next `reuse()`; nil when it does not fit (bind
    /// it with `SQLITE_TRANSIENT`).
    mutating func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        wanted += bytes.count
        guard let source = bytes.baseAddress, let base = buffer.baseAddress, bytes.count <= buffer.count - used else {
            return nil
        }
        let target = base + used
        target.copyMemory(from: source, byteCount: bytes.count)
        used += bytes.count
        return UnsafeRawPointer(target)
    }

    /// Makes the buffer free for the next run. Returns true when it moved (it grew): bindings
    /// that still point into the old one must be cleared first, and the caller does so.
    mutating func reuse() -> Bool {
        defer {
            used = 0
            wanted = 0
        }
        guard wanted > buffer.count, buffer.count < Self.maximumCapacity else { return false }
        var capacity = max(buffer.count, Self.initialCapacity)
        while capacity < wanted && capacity < Self.maximumCapacity { capacity *= 2 }
        let moved = buffer.baseAddress != nil
        buffer.deallocate()
        buffer = .allocate(byteCount: min(capacity, Self.maximumCapacity), alignment: 1)
        return moved
    }
}
