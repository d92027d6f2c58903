import OpenPredicate

/// Finds the `contents` XML file behind a URL given to `NSManagedObjectModel(contentsOf:)`, and
/// the model files inside a bundle for `mergedModel(from:)`.
///
/// - An `.xcdatamodeld` folder (a versioned model) gives its current version: the
///   `.xcdatamodel` named by `_XCCurrentVersionName` in its `.xccurrentversion` property list,
///   or, without that file, its only version, or the last one in numeric name order
///   ("Model 10" after "Model 2").
/// - An `.xcdatamodel` folder (or any folder holding a `contents` file) gives its `contents`.
/// - Any other file is read as `contents` XML itself, whatever its name.
/// - A compiled model (`.mom`, `.momd`, `.omo`, or a binary property list) is refused.
enum ModelFileLocator {
    static let versionedExtension = "xcdatamodeld"
    static let versionExtension = "xcdatamodel"
    static let compiledExtensions: Set<String> = ["mom", "momd", "omo"]

    /// The URL of the `contents` file to parse for `url`.
    static func contentsFile(for url: URL) throws -> URL {
        guard url.isFileURL else {
            throw ModelFileError(.unsupportedScheme, "only file URLs can be loaded as model files", file: url)
        }
        let url = url.standardizedFileURL
        if compiledExtensions.contains(url.pathExtension.lowercased()) {
            throw compiledModelError(url)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError(.noSuchFile, "no such file or folder", file: url)
        }
        guard isDirectory.boolValue else { return url }
        if url.pathExtension == versionedExtension { return try contentsFile(for: try currentVersion(of: url)) }
        let contents = url.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) { return contents }
        if !versions(in: url).isEmpty { return try contentsFile(for: try currentVersion(of: url)) }
        throw ModelFileError(.noSuchFile, "the folder has no model 'contents' file", file: contents)
    }

    /// Reads the file, turning file-system failures into Cocoa's file errors.
    static func data(of file: URL) throws -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            let code =
                FileManager.default.isReadableFile(atPath: file.path) ? NSFileReadUnknownError : NSFileReadNoPermissionError
            throw ModelFileError(
                .unreadable(code: code), "the file could not be read", file: file, underlying: error as NSError)
        }
        if data.starts(with: Array("bplist".utf8)) { throw compiledModelError(file) }
        return data
    }

    static func compiledModelError(_ url: URL) -> ModelFileError {
        ModelFileError(
            .unsupportedFormat,
            "compiled models (.mom, .momd) are not supported yet: load the .xcdatamodeld or .xcdatamodel it was compiled from",
            file: url)
    }

    // MARK: - Versions

    /// The `.xcdatamodel` versions directly inside a folder, in numeric order of their names
    /// without the extension ("Model", "Model 2", "Model 10").
    static func versions(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return
            names
            .filter { ($0 as NSString).pathExtension == versionExtension }
            .map { ($0 as NSString).deletingPathExtension }
            .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
            .map { $0 + "." + versionExtension }
            .map { folder.appendingPathComponent($0) }
    }

    /// The current version of a versioned model.
    static func currentVersion(of folder: URL) throws -> URL {
        let marker = folder.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: marker.path) {
            let data = try data(of: marker)
            let plist: Any
            do {
                plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                throw ModelFileError(.corrupt, "not a property list", file: marker, underlying: error as NSError)
            }
            if let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String, !name.isEmpty {
                let version = folder.appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: version.path) else {
                    throw ModelFileError(
                        .noSuchFile, "the current version '\(name)' named by .xccurrentversion is missing", file: version)
                }
                return version
            }
        }
        guard let last = versions(in: folder).last else {
            throw ModelFileError(.noSuchFile, "the versioned model has no .xcdatamodel version", file: folder)
        }
        return last
    }

    // MARK: - Bundles

    /// Model files in a folder and its sub-folders, in path order: each `.xcdatamodeld`, and
    /// each `.xcdatamodel` that is not a version inside one. Symbolic links are followed once;
    /// the search stops 16 folders deep.
    static func modelFiles(in folder: URL) -> [URL] {
        var found: [URL] = []
        var visited: Set<String> = []
        func search(_ folder: URL, depth: Int) {
            guard depth <= 16, visited.insert(folder.resolvingSymlinksInPath().path).inserted else { return }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where !isHostCopy(name, besides: names) {
                let url = folder.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    continue
                }
                switch url.pathExtension {
                case versionedExtension, versionExtension: found.append(url)
                default: search(url, depth: depth + 1)
                }
            }
        }
        search(folder, depth: 0)
        return found
    }

    /// Whether `name` is SwiftPM's copy of a resource bundle built for the host
    /// (`App_App-tool.resources`, made when a package also builds macros or plug-ins) beside the
    /// bundle itself: the same model files twice, which would clash when merged.
    private static func isHostCopy(_ name: String, besides names: [String]) -> Bool {
        for suffix in [".resources", ".bundle"] where name.hasSuffix("-tool" + suffix) {
            return names.contains(String(name.dropLast(("-tool" + suffix).count)) + suffix)
        }
        return false
    }
}
