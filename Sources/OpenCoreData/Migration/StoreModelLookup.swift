import OpenPredicate

extension NSManagedObjectModel {
    /// The version of `model` a store with `metadata` was written with: the model, among the
    /// versions of every versioned model in the app's bundles, whose entity version hashes equal
    /// the store's; nil when none does.
    static func storeModel(forMetadata metadata: [String: Any], besides model: NSManagedObjectModel) -> NSManagedObjectModel? {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        let hashes = stored.compactMapValues { $0 as? Data }
        for folder in NSPersistentContainer.modelSearchFolders() {
            for file in ModelFileLocator.modelFiles(in: folder) {
                let versions =
                    file.pathExtension == ModelFileLocator.versionedExtension ? ModelFileLocator.versions(in: file) : [file]
                for version in versions {
                    if let candidate = NSManagedObjectModel(contentsOf: version), candidate.entityVersionHashesByName == hashes {
                        return candidate
                    }
                }
            }
        }
        return nil
    }
}
