import OpenPredicate

extension NSManagedObjectModel {
    /// A model made by merging every model file found in the given bundles.
    ///
    /// ```swift
    /// // Package.swift: .target(name: "App", resources: [.copy("Model.xcdatamodeld")])
    /// let model = NSManagedObjectModel.mergedModel(from: [Bundle.module])
    /// ```
    ///
    /// Each bundle's resource folder is searched, sub-folders included (SwiftPM's
    /// `.copy("Model.xcdatamodeld")` puts the folder in the target's resource bundle), for
    /// `.xcdatamodeld` and `.momd` folders (their current version is used) and `.xcdatamodel`
    /// folders and `.mom` files that are not versions inside one (a compiled model beside the
    /// model file of the same name is that model, and is skipped); each is loaded as by
    /// `init(contentsOf:)`, in path order, and
    /// the models are merged as by `init(byMerging:)`: their entities, configurations and fetch
    /// request templates together.
    ///
    /// **Default:** `nil` for `bundles` searches the main bundle only.
    ///
    /// **Differences from Apple:** Apple's merges only the *compiled* models (`.mom`, `.momd`)
    /// that Xcode puts in a bundle; this merges the model files themselves too. Returns `nil` when a model file fails to load (`init(validatingContentsOf:)` says why)
    /// or when two models define an entity of the same name (where Apple's stops the process);
    /// a bundle without model files gives an empty model.
    /// See [mergedModel(from:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/mergedmodel(from:)).
    ///
    /// - Parameter bundles: The bundles to search; `nil` for the main bundle.
    /// - Returns: The merged model, or `nil` as described above.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        var models: [NSManagedObjectModel] = []
        for bundle in bundles ?? [Bundle.main] {
            let folder = bundle.resourceURL ?? bundle.bundleURL
            for file in ModelFileLocator.modelFiles(in: folder) {
                guard let model = NSManagedObjectModel(contentsOf: file) else { return nil }
                models.append(model)
            }
        }
        return try? NSManagedObjectModel.merging(models)
    }
}
