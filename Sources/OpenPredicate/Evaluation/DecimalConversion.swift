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
    package var nearestDouble: Double {
        Double(description) ?? NSDecimalNumber(decimal: self).doubleValue
    }

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
