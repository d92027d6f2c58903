import OpenPredicate

// The calls of the lifecycle methods subclasses override (`prepareForDeletion()`, `willSave()`);
// `didSave()`, the fault and snapshot hooks are called where the context saves, refreshes,
// rolls back and resets.

extension NSManagedObjectContext {
    /// How many times a save calls `willSave()` on objects that `willSave()` itself keeps
    /// changing before it gives up.
    static let willSaveRounds = 100

    /// Calls `prepareForDeletion()` on each object deleted since the last call (once per
    /// deletion): from `processPendingChanges()`, before delete rules run at save.
    func prepareDeletedObjects() {
        guard !deletedList.isEmpty || !deletedInserts.isEmpty else { return }
        // The lists may grow while the objects' own code runs.
        var index = 0
        while index < deletedList.count {
            prepareForDeletion(deletedList.objects[index])
            index += 1
        }
        index = 0
        while index < deletedInserts.count {
            prepareForDeletion(deletedInserts[index])
            index += 1
        }
    }

    /// Calls `prepareForDeletion()` on a deleted object unless it was called for this deletion.
    func prepareForDeletion(_ object: NSManagedObject) {
        guard object.deleted, !object.preparedForDeletion else { return }
        object.preparedForDeletion = true
        object.prepareForDeletion()
    }

    /// Calls `willSave()` on every inserted, updated and deleted object, then again on those
    /// that calls changed or inserted, until a round changes nothing; each round first applies
    /// the delete rules of new deletions (`applyDeleteRules`).
    ///
    /// - Throws: `NSCoreDataError` when objects are still changing after `willSaveRounds`
    ///   rounds (Apple keeps calling until the process runs out of stack).
    func announceWillSave(applyingDeleteRules applyDeleteRules: () throws -> Void) throws {
        // Objects are marked in their flags, not kept in sets (two set insertions an object a
        // round were a tenth of a save of new subclass objects): called in this save, and seen
        // in this round (an object may be in two lists).
        var called: [NSManagedObject] = []
        var changed: Set<ObjectIdentifier> = []
        defer {
            changedDuringWillSave = nil
            for object in called { object.willSaveCalled = false }
        }
        for _ in 0..<Self.willSaveRounds {
            try applyDeleteRules()
            // `NSManagedObject`'s `willSave()` does nothing: only objects of classes that
            // override it are asked, and while no class does, no object is looked at.
            guard MethodOverride.willSave.isOverriddenByAnyClass else { return }
            var round: [NSManagedObject] = []
            // Each list is walked in place: a list made of them would take and drop a reference
            // to each object, two more passes over 10^5 new objects.
            func consider(_ object: NSManagedObject) {
                guard MethodOverride.willSave.isOverridden(by: type(of: object)) && !object.isWillSaveCandidate else {
                    return
                }
                object.isWillSaveCandidate = true
                if !object.willSaveCalled {
                    object.willSaveCalled = true
                    called.append(object)
                    round.append(object)
                } else if changed.contains(ObjectIdentifier(object)) {
                    round.append(object)
                }
            }
            insertedList.objects.forEachUnretained(consider)
            changedList.objects.forEachUnretained { if $0.isUpdated { consider($0) } }
            deletedList.objects.forEachUnretained(consider)
            // Every object marked is among those called (this round or before): a save of plain
            // objects marks none, and makes no second pass over them.
            for object in called { object.isWillSaveCandidate = false }
            guard !round.isEmpty else { return }
            changedDuringWillSave = []
            for object in round { object.willSave() }
            changed = changedDuringWillSave ?? []
            changedDuringWillSave = nil
            processPendingChanges()
        }
        throw CoreDataError.make(
            code: NSCoreDataError,
            reason: "willSave() kept changing objects after \(Self.willSaveRounds) rounds; "
                + "change a value in willSave() only when it differs")
    }
}
