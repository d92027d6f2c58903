import OpenPredicate

/// A write a batch request makes in a store without loading rows (`RowStore.execute(_:)`):
/// update the attributes of the rows a plan matches, or delete them.
///
/// ```swift
/// var raise = BatchWrite(action: .update([BatchAssignment(property: "salary",
///                        value: .expression(NSExpression(format: "salary + 1000")))]),
///                        target: .plan(plan))
/// raise.returnsKeys = true
/// let keys = try store.execute(raise).keys   // the rows updated
/// ```
///
/// The store runs it in one transaction: an update sets the assigned columns and raises each
/// row's version (`Z_OPT`) by one; a delete removes the rows and their join-table rows. Rules of
/// relationships are the caller's: a delete target reaches no other row (no cascade, deny, or
/// nullify of an inverse to-one).
package struct BatchWrite: Sendable {
    package enum Action: Sendable {
        case update([BatchAssignment])
        case delete
    }

    /// The rows written.
    ///
    /// `@unchecked Sendable`: a plan's predicate and sorts are Foundation classes that are not
    /// `Sendable`; a batch write is made and run on one context's queue and never changed.
    package enum Target: @unchecked Sendable {
        /// The rows a plan matches: its entities, predicate, sorts, limit and offset.
        case plan(FetchPlan)
        /// The rows of these keys (those that exist), all in the table of `entityID`, whose
        /// properties the assignments name.
        case keys(entityID: Int, [ObjectKey])
    }

    package var action: Action
    package var target: Target
    /// Whether the outcome lists the keys written (else only their count). **Default:** false.
    package var returnsKeys = false
    /// The persistent-history transaction to record; the store adds one change per row written
    /// (an update naming the assigned slots, or a delete). **Default:** nil.
    package var history: HistoryTransactionDraft?

    package init(action: Action, target: Target) {
        self.action = action
        self.target = target
    }
}

extension BatchWrite {
    /// The history transaction to record for the rows written (`keys`), or nil when none is
    /// asked for or no row was written: an update names the assigned slots of each row's entity.
    package func history(of keys: [ObjectKey], schema: StoreSchema) -> HistoryTransactionDraft? {
        guard var draft = history, !keys.isEmpty else { return nil }
        var slotsByEntity: [Int: [Int]] = [:]
        draft.changes.reserveCapacity(draft.changes.count + keys.count)
        for key in keys {
            switch action {
            case .delete:
                draft.changes.append(HistoryChange(key: key, kind: .delete))
            case .update(let assignments):
                let slots =
                    slotsByEntity[key.entityID]
                    ?? assignments.compactMap { schema.entity(key.entityID).slotsByName[$0.property] }.sorted()
                slotsByEntity[key.entityID] = slots
                draft.changes.append(HistoryChange(key: key, kind: .update, updatedSlots: slots))
            }
        }
        return draft
    }
}

/// The new value of one attribute in a batch update.
///
/// `@unchecked Sendable`: an `NSExpression` is not `Sendable`; assignments are never changed
/// once made.
package struct BatchAssignment: @unchecked Sendable {
    package enum Value {
        /// The same value for every row, already of the attribute's kind.
        case constant(StoreValue)
        /// An expression of each row's values (`salary + 1000`), computed by the store.
        case expression(NSExpression)
    }

    /// The attribute's name (the same in every entity of the hierarchy).
    package var property: String
    package var value: Value

    package init(property: String, value: Value) {
        self.property = property
        self.value = value
    }
}

/// What a batch write did.
package struct BatchWriteOutcome: Sendable {
    /// The rows written.
    package var count: Int
    /// Their keys, when `BatchWrite.returnsKeys` (or history) asked for them; nil otherwise.
    package var keys: [ObjectKey]?

    package init(count: Int, keys: [ObjectKey]?) {
        self.count = count
        self.keys = keys
    }
}

/// A store that runs no batch writes (the in-memory store, as Apple's).
package struct BatchWriteUnsupportedError: Error {
    package init() {}
}

/// A batch update whose values the store's SQL cannot compute exactly (Foundation's string rules
/// on PostgreSQL), and why: the caller computes them row by row and saves the rows. Nothing was
/// written.
package struct BatchWriteNeedsRowsError: Error {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
}

/// A batch write the store cannot run as asked: an expression or predicate it cannot compute,
/// and why. Nothing was written.
package struct BatchWriteRefusedError: Error {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
}
