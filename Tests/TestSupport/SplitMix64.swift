/// A small seeded random number generator (SplitMix64): the same sequence for a seed on every
/// machine and every run, so that a random test that fails fails again.
///
/// ```swift
/// var random = SplitMix64(seed: 0x5EED)
/// let count = Int.random(in: 0..<10, using: &random)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state: the seed, advanced by each call to `next()`.
    public private(set) var state: UInt64

    /// A generator whose sequence depends only on `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when `bound` is not positive): `next()` modulo `bound`, so one
    /// call a number, unlike `Int.random(in:using:)`.
    public mutating func next(below bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }
}
