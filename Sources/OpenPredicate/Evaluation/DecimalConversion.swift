import Foundation

/// Exact conversions between `Decimal` and `Double`, shared by the stores and the evaluator.
///
/// A decimal attribute lives as a double in an SQLite file (as Apple's store keeps it), so a
/// value read back and compared again must cross between the two without drifting. Corelibs'
/// conversions drift: `Decimal(0.1)` is 0.1000000000000000512, and `NSDecimalNumber.doubleValue`
/// misses the nearest double for about two thirds of the values a double spells. Going through
/// the digits instead is exact both ways: a double's shortest spelling parses back to it, and
/// `Double(String)` rounds correctly.
extension Decimal {
    /// The double nearest to this decimal.
    ///
    /// A significand of at most 2^53 and a power of ten up to 10^22 are both exact doubles, so
    /// one multiplication or division rounds correctly (Clinger's fast path): that covers prices
    /// and most typed-in values for about 60 ns. Others, such as the 17 digits of a double's
    /// spelling, go through the digits (about 2.5 µs).
    package var nearestDouble: Double {
        if !isNaN, (-22...22).contains(exponent) {
            // `uint64Value` may round a long significand: the check below keeps only exact ones.
            let mantissa = NSDecimalNumber(decimal: significand).uint64Value
            if mantissa <= 1 << 53, Decimal(mantissa) == significand {
                let power = Self.exactPowersOfTen[abs(exponent)]
                let magnitude = exponent >= 0 ? Double(mantissa) * power : Double(mantissa) / power
                return sign == .minus ? -magnitude : magnitude
            }
        }
        return Double(description) ?? NSDecimalNumber(decimal: self).doubleValue
    }

    /// 10^0 … 10^22, the powers of ten a double holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// The decimal a double spells in its shortest round-trip form (0.1 for 0.1); `nan` for a
    /// double that is not finite.
    package init(spelling double: Double) {
        guard double.isFinite else {
            self = .nan
            return
        }
        self = Decimal(string: "\(double)") ?? Decimal(double)
    }
}
