import OpenPredicate

extension NSPersistentContainer {
    /// The model file named `name` in the app's bundles, loaded (see `init(name:)`).
    static func model(named name: String) -> Result<NSManagedObjectModel, Error> {
        let folders = modelSearchFolders()
        let fileManager = FileManager.default
        for folder in folders {
            let extensions = [
                ModelFileLocator.versionedExtension, ModelFileLocator.versionExtension,
                ModelFileLocator.compiledVersionedExtension, ModelFileLocator.compiledExtension,
            ]
            for fileExtension in extensions {
                let url = folder.appendingPathComponent(name).appendingPathExtension(fileExtension)
                guard fileManager.fileExists(atPath: url.path) else { continue }
                do {
                    return .success(try NSManagedObjectModel(validatingContentsOf: url))
                } catch {
                    return .failure(error)
                }
            }
        }
        let searched = folders.map(\.path).joined(separator: ", ")
        return .failure(
            CoreDataError.make(
                code: NSFileReadNoSuchFileError,
                reason:
                    "No model named '\(name)' (\(name).xcdatamodeld, \(name).xcdatamodel, \(name).momd or \(name).mom) was found; "
                    + "searched: \(searched)",
                userInfo: ["NSModelName": name]))
    }

    /// The resource folders of the main bundle and every loaded bundle, each followed by the
    /// SwiftPM resource bundles (`*.resources`, `*.bundle`) directly inside it; no folder twice.
    static func modelSearchFolders() -> [URL] {
        var folders: [URL] = []
        var seen: Set<String> = []
        func add(_ url: URL) {
            if seen.insert(url.standardizedFileURL.path).inserted { folders.append(url) }
        }
        for bundle in [Bundle.main] + Bundle.allBundles {
            for folder in [bundle.resourceURL, bundle.bundleURL].compactMap({ $0 }) {
                add(folder)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for name in names.sorted() where name.hasSuffix(".resources") || name.hasSuffix(".bundle") {
                    add(folder.appendingPathComponent(name))
                }
            }
        }
        return folders
    }
}
