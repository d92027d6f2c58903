import Foundation
import OpenStoreCore

/// The persistent cache of a fetched results controller with a cache name: its results (object
/// URIs) and sections in a property list file, so that `performFetch()` — after a restart too —
/// lays out the results without fetching them or loading an object.
///
/// A cache is used only while it provably holds what a fetch would return. It names the
/// request (its description and section key path) and the stores, and keeps each store's
/// change stamp (`RowStore.changeStamp(entityIDs:)`: row count, sum of row versions and highest
/// key of the fetched entities' tables, which any insert, update or delete changes, by this
/// library or by Apple's Core Data) as it was when the cache was written. Another request
/// (Apple's rule: a changed request refuses the cache), a write since, or unsaved changes in the
/// context make `performFetch()` fetch, and write the cache anew. Stores without a stamp (the
/// in-memory store) never use a cache.
struct FetchedResultsCache {
    /// `OpenCoreData/FetchedResultsCaches` in the user's caches folder, as Apple keeps its
    /// section caches in the app's caches folder.
    static var folder: URL {
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("OpenCoreData/FetchedResultsCaches", isDirectory: true)
    }

    /// The file of a cache name (the name escaped to one path component).
    static func file(named name: String) -> URL {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        let escaped = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "_"
        return folder.appendingPathComponent(escaped + ".plist")
    }

    /// Deletes the file of a name, or every cache file when `name` is nil.
    static func delete(named name: String?) {
        try? FileManager.default.removeItem(at: name.map(file(named:)) ?? folder)
    }

    /// How many objects of a layout read from a cache load together when one is first read,
    /// when the request has no `fetchBatchSize`.
    static let batchSize = 500

    let name: String
    /// What a cache must match: the request, the section key path, the stores and their stamps.
    private let key: [String]?

    /// The cache of `name` for a request whose plan is `plan`; its key is nil (no cache) when a
    /// store has no change stamp.
    init(name: String, request: AnyFetchRequest, sectionNameKeyPath: String?, plan: FetchPlan, context: NSManagedObjectContext) {
        self.name = name
        guard let coordinator = context.persistentStoreCoordinator else {
            key = nil
            return
        }
        var key = [request.description, sectionNameKeyPath ?? ""]
        for store in request.affectedStores ?? coordinator.persistentStores {
            guard let store = store as? RowBackedPersistentStore,
                let stamp = try? store.rows.changeStamp(entityIDs: plan.entityIDs)
            else {
                self.key = nil
                return
            }
            key.append("\(store.identifier ?? "") \(stamp.map(String.init).joined(separator: " "))")
        }
        self.key = key
    }

    /// The cached results, if the file matches this request and the stores as they are.
    func read() -> (uris: [URL], sections: [(name: String, count: Int)])? {
        guard let key, let data = try? Data(contentsOf: Self.file(named: name)),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            plist["key"] as? [String] == key, let uris = plist["objects"] as? [String],
            let names = plist["sectionNames"] as? [String], let counts = plist["sectionCounts"] as? [Int],
            names.count == counts.count, counts.reduce(0, +) == uris.count
        else { return nil }
        let urls = uris.compactMap(URL.init(string:))
        guard urls.count == uris.count else { return nil }
        return (urls, Array(zip(names, counts)))
    }

    /// Writes a layout (nothing when the stores have no stamp).
    func write(_ layout: FetchedResultsLayout) {
        guard let key else { return }
        let plist: [String: Any] = [
            "key": key, "objects": layout.objects.map { $0.objectID.uriRepresentation().absoluteString },
            "sectionNames": layout.sections.map(\.name), "sectionCounts": layout.sections.map(\.count),
        ]
        guard let data = try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        else { return }
        try? FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        try? data.write(to: Self.file(named: name), options: .atomic)
    }
}
