import OpenPredicate
import OpenStoreCore

extension InMemoryRowStore {
    /// Test hook: when false, every sort goes through OpenPredicate's `sorted(using:)` over row
    /// views instead of the native comparison of stored values, so tests can check that both
    /// give the same order.
    package var sortsNatively: Bool {
        get { usesNativeSortSetting }
        set { usesNativeSortSetting = newValue }
    }
}
