extension NSManagedObjectModel {
    /// Writes the model as an Xcode model: `url` becomes an `.xcdatamodel` folder holding its
    /// `contents` file, which Xcode opens and `NSManagedObjectModel(contentsOf:)` loads back with
    /// the same entity version hashes.
    ///
    /// ```swift
    /// // Recover the model of a store pulled from a device, for Xcode:
    /// if let model = try NSManagedObjectModel.cachedModel(ofStoreAt: storeURL) {
    ///     try model.writeXcodeModel(to: folder.appendingPathComponent("Recovered.xcdatamodel"))
    /// }
    /// ```
    ///
    /// Written: entities, attributes, relationships, fetched properties, uniqueness constraints,
    /// default values, user info (as text), fetch request templates (entity and predicate),
    /// configurations and the version identifier. Not written: validation rules, fetch indexes
    /// and Spotlight flags (none changes a version hash), and sort descriptors of templates
    /// (Xcode's format has none). An existing `contents` file at `url` is replaced.
    ///
    /// **Differences from Apple:** an OpenCoreData addition; Apple's Core Data has no API that
    /// writes a model file (Xcode does).
    ///
    /// - Throws: A `NSFileWriteUnknownError` in `NSCocoaErrorDomain` naming the folder when it
    ///   cannot be created or written, or when `url` names a file that is not a folder.
    public func writeXcodeModel(to url: URL) throws {
        let text = ModelFileWriter.contents(of: self)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw CoreDataError.make(
                code: NSFileWriteUnknownError,
                reason: "Can't write the model to \(url.path): a file that is not a folder is there",
                userInfo: [NSFilePathErrorKey: url.path])
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url.appendingPathComponent("contents"), options: .atomic)
        } catch {
            throw CoreDataError.make(
                code: NSFileWriteUnknownError, reason: "Can't write the model to \(url.path): \(error.localizedDescription)",
                userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
    }
}
