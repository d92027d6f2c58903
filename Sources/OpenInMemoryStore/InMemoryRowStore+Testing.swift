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

extension InMemoryRowStore {
    /// Test hook: how many times the store was asked for something, by entry point.
    package struct CallCounts: Equatable, Sendable {
        /// `execute(_:)` calls.
        package var fetches = 0
        /// `row(for:)` calls.
        package var rowLoads = 0
        /// `rows(for:)` calls (one per batch, whatever its size).
        package var rowBatches = 0

        package init(fetches: Int = 0, rowLoads: Int = 0, rowBatches: Int = 0) {
            self.fetches = fetches
            self.rowLoads = rowLoads
            self.rowBatches = rowBatches
        }

        /// Every call, whatever its kind.
        package var total: Int { fetches + rowLoads + rowBatches }
    }

    /// Test hook: the calls counted since the store was made or the counts were last set.
    package var callCounts: CallCounts {
        get { callCountsSetting }
        set { callCountsSetting = newValue }
    }
}
