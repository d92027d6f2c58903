import OpenPredicate

extension NSManagedObjectModel {
    /// The model a store was written with, merged from the model files in the given bundles:
    /// every version of every model file is a candidate, not only the current one.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
    ///     ofType: NSSQLiteStoreType, at: storeURL, options: nil)
    /// if let sourceModel = NSManagedObjectModel.mergedModel(from: [Bundle.module], forStoreMetadata: metadata) {
    ///     // the model to migrate from
    /// }
    /// ```
    ///
    /// The bundles are searched as by `mergedModel(from:)`. From each model file (an
    /// `.xcdatamodeld` or `.momd` gives each of its versions, in version order; an
    /// `.xcdatamodel` or `.mom` gives itself) the first version whose every entity has the
    /// version hash the metadata's `NSStoreModelVersionHashes` gives for its name is taken;
    /// model files with no such version are left out. The chosen versions are merged, and the
    /// result is returned when its `entityVersionHashesByName` equal the metadata's hashes
    /// exactly (the same entities, the same hashes).
    ///
    /// **Default:** `nil` for `bundles` searches the main bundle only.
    ///
    /// **Differences from Apple:** a model file that fails to load is skipped rather than
    /// failing the search; model files are searched as `mergedModel(from:)` describes.
    /// See [mergedModel(from:forStoreMetadata:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/mergedmodel(from:forstoremetadata:)).
    ///
    /// - Parameters:
    ///   - bundles: The bundles to search; `nil` for the main bundle.
    ///   - metadata: A store's metadata (`metadataForPersistentStore(ofType:at:options:)`).
    /// - Returns: The model the store was written with, or nil when no combination of the
    ///   bundles' model versions matches the metadata (or the metadata has no version hashes).
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        guard let hashes = storeHashes(metadata) else { return nil }
        var chosen: [NSManagedObjectModel] = []
        for bundle in bundles ?? [Bundle.main] {
            let folder = bundle.resourceURL ?? bundle.bundleURL
            for file in ModelFileLocator.modelFiles(in: folder) {
                let candidates = versionFiles(of: file).lazy.compactMap { NSManagedObjectModel(contentsOf: $0) }
                if let match = candidates.first(where: { $0.entitiesMatch(hashes) }) { chosen.append(match) }
            }
        }
        guard !chosen.isEmpty else { return nil }
        let merged: NSManagedObjectModel
        if chosen.count == 1, let only = chosen.first {
            merged = only
        } else {
            guard let model = try? NSManagedObjectModel.merging(chosen) else { return nil }
            merged = model
        }
        return merged.hashesEqual(hashes) ? merged : nil
    }

    // MARK: - For migration

    /// The model whose `entityVersionHashesByName` equal the metadata's
    /// `NSStoreModelVersionHashes`: `model` itself if it matches, else the first match among
    /// every version in the same `.xcdatamodeld` / `.momd` folder as `model`'s source file
    /// (`sourceFileURL`), then among the model files in the folders `NSPersistentContainer`
    /// searches (every version of each). Nil when none matches.
    static func storeModel(forMetadata metadata: [String: Any], besides model: NSManagedObjectModel) -> NSManagedObjectModel? {
        guard let hashes = storeHashes(metadata) else { return nil }
        if model.hashesEqual(hashes) { return model }
        if let match = allVersions(besides: model).first(where: { $0.hashesEqual(hashes) }) { return match }
        var searched: Set<String> = []
        if let folder = versionFolder(of: model) { searched.insert(folder.path) }
        for folder in NSPersistentContainer.modelSearchFolders() {
            for file in ModelFileLocator.modelFiles(in: folder) where searched.insert(file.standardizedFileURL.path).inserted {
                for version in versionFiles(of: file) {
                    if let candidate = NSManagedObjectModel(contentsOf: version), candidate.hashesEqual(hashes) {
                        return candidate
                    }
                }
            }
        }
        return nil
    }

    /// Every version in the `.xcdatamodeld` or `.momd` folder `model` was loaded from (the
    /// folder itself, or the folder around the version it was loaded from), in version order
    /// (numeric order of the names, as Xcode lists them), each loaded afresh; versions that
    /// fail to load are left out. Empty when the model was not loaded from such a folder.
    static func allVersions(besides model: NSManagedObjectModel) -> [NSManagedObjectModel] {
        guard let folder = versionFolder(of: model) else { return [] }
        return versions(at: folder)
    }

    /// Every version of the model file at `url`, each loaded afresh, in version order (numeric
    /// order of the names: "Model 2" before "Model 10"): the versions of an `.xcdatamodeld` or
    /// `.momd` folder, or the model itself; versions that fail to load are left out. The
    /// `coredata` tool finds a store's model version with it.
    package static func versions(at url: URL) -> [NSManagedObjectModel] {
        versionFiles(of: url).compactMap { NSManagedObjectModel(contentsOf: $0) }
    }

    /// The `.xcdatamodeld` / `.momd` folder around the model's source file, if any.
    static func versionFolder(of model: NSManagedObjectModel) -> URL? {
        guard var url = model.sourceFileURL?.standardizedFileURL else { return nil }
        let versioned: Set<String> = [ModelFileLocator.versionedExtension, ModelFileLocator.compiledVersionedExtension]
        // The folder itself, a version in it, or a file inside a version (`v2.xcdatamodel/contents`).
        for _ in 0..<3 {
            if versioned.contains(url.pathExtension) { return url }
            url = url.deletingLastPathComponent()
        }
        return nil
    }

    /// The loadable versions of a model file: each version of an `.xcdatamodeld` or `.momd`
    /// folder in version order, or the file itself.
    static func versionFiles(of file: URL) -> [URL] {
        switch file.pathExtension {
        case ModelFileLocator.versionedExtension: return ModelFileLocator.versions(in: file)
        case ModelFileLocator.compiledVersionedExtension: return ModelFileLocator.compiledVersions(in: file)
        default: return [file]
        }
    }

    /// The metadata's `NSStoreModelVersionHashes` as `[String: Data]`, or nil without them.
    static func storeHashes(_ metadata: [String: Any]) -> [String: Data]? {
        guard let raw = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        var hashes: [String: Data] = [:]
        for (name, value) in raw {
            guard let hash = value as? Data else { return nil }
            hashes[name] = hash
        }
        return hashes
    }

    /// Whether this model's entities are exactly those of `hashes`, each with its hash.
    func hashesEqual(_ hashes: [String: Data]) -> Bool {
        entityVersionHashesByName == hashes
    }

    /// Whether every entity of this model is in `hashes` with its hash.
    func entitiesMatch(_ hashes: [String: Data]) -> Bool {
        let own = entityVersionHashesByName
        return !own.isEmpty && own.allSatisfy { hashes[$0.key] == $0.value }
    }
}
