import Foundation
@testable import OpenPredicate
import TestSupport
import Testing

/// `Decimal.nearestDouble` is the correctly rounded double (what `Double` parses from the
/// decimal's digits) on its fast path and off it, and `Decimal(spelling:)` gives it back.
@Suite struct DecimalConversionTests {
    @Test func nearestDoubleIsCorrectlyRounded() throws {
        var random = SplitMix64(seed: 2_026)
        func next(_ bound: Int) -> Int { random.next(below: bound) }
        var texts = ["0", "-0", "0.1", "12.50", "9007199254740992", "9007199254740993", "1e22", "1e23", "-3.3333333332999993"]
        for _ in 0..<20_000 {
            switch next(3) {
            case 0: texts.append("\(next(20_000_000)).\(next(100))")  // prices
            case 1: texts.append("\(next(2_000_000) - 1_000_000)e\(next(61) - 30)")  // every exponent near the fast path's
            default: texts.append("\(Double(next(1 << 30)) / Double(next(1 << 20) + 1))")  // a double's 17 digits
            }
        }
        for text in texts {
            let decimal = try #require(Decimal(string: text), "\(text)")
            let exact = try #require(Double(decimal.description))
            #expect(decimal.nearestDouble.bitPattern == exact.bitPattern || (exact == 0 && decimal.nearestDouble == 0), "\(text)")
        }
        for double in [0.1, 925.5674713864153, 3.3333333332999993, -1e-7, 123_456_789.125] {
            #expect(Decimal(spelling: double).nearestDouble == double, "\(double)")
        }
    }
}
