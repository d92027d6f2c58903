import OpenPredicate
import OpenStoreCore

/// Whether a store was written for a model: Apple's rule, the entity version hashes in the
/// store's metadata (`NSStoreModelVersionHashes`) equal the model's
/// (`NSManagedObjectModel.entityVersionHashesByName`), entity by entity, with the same entity
/// names on both sides.
///
/// ```swift
/// try AppleSQLCompatibility.check(store: metadata.versionHashes, model: model.entityVersionHashesByName, path: url.path)
/// // throws NSPersistentStoreIncompatibleVersionHashError (134100), userInfo["entities"] = ["Book"]
/// ```
package enum AppleSQLCompatibility {
    /// The entity names whose hashes differ or that only one side has, sorted.
    package static func differingEntities(store: [String: Data], model: [String: Data]) -> [String] {
        Set(store.keys).union(model.keys).filter { store[$0] != model[$0] }.sorted()
    }

    /// Throws unless the hashes match.
    /// - Throws: `NSPersistentStoreIncompatibleVersionHashError` (134100) whose message names
    ///   the differing entities (also in `userInfo["entities"]`) and the store file.
    package static func check(store: [String: Data], model: [String: Data], path: String?) throws {
        let differing = differingEntities(store: store, model: model)
        guard !differing.isEmpty else { return }
        let details = differing.map { name in
            switch (store[name] != nil, model[name] != nil) {
            case (true, false): "\(name) (only in the store)"
            case (false, true): "\(name) (only in the model)"
            default: "\(name) (changed)"
            }
        }
        let file = path.map { " \($0)" } ?? ""
        throw SQLStoreError.incompatibleVersionHashes(
            "The model used to open the store\(file) is incompatible with the one used to create it: \(details.joined(separator: ", "))",
            entities: differing, path: path)
    }
}
