import OpenPredicate

/// Finds the file behind a URL given to `NSManagedObjectModel(contentsOf:)`, and the model files
/// inside a bundle for `mergedModel(from:)`.
///
/// - An `.xcdatamodeld` folder (a versioned model) gives its current version: the
///   `.xcdatamodel` named by `_XCCurrentVersionName` in its `.xccurrentversion` property list,
///   or, without that file, its only version, or the last one in numeric name order
///   ("Model 10" after "Model 2").
/// - A `.momd` folder (a compiled versioned model) gives its current version: the `.mom` named
///   by `NSManagedObjectModel_CurrentVersionName` in its `VersionInfo.plist`, or, without one,
///   its only or last `.mom` in the same order.
/// - An `.xcdatamodel` folder (or any folder holding a `contents` file) gives its `contents`;
///   one without `contents` but with an `elements` file (saved by Xcode 3) gives `elements`.
/// - An `.omo` file (an optimized compiled model) gives the `.mom` of the same name beside it.
/// - Any other file is given as it is; the loader tells `contents` XML from a compiled model
///   or an `elements` file by its bytes.
enum ModelFileLocator {
    static let versionedExtension = "xcdatamodeld"
    static let versionExtension = "xcdatamodel"
    static let compiledVersionedExtension = "momd"
    static let compiledExtension = "mom"
    static let optimizedExtension = "omo"

    /// The file to read for `url`.
    static func contentsFile(for url: URL) throws -> URL {
        guard url.isFileURL else {
            throw ModelFileError(.unsupportedScheme, "only file URLs can be loaded as model files", file: url)
        }
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError(.noSuchFile, "no such file or folder", file: url)
        }
        guard isDirectory.boolValue else {
            guard url.pathExtension.lowercased() == optimizedExtension else { return url }
            let mom = url.deletingPathExtension().appendingPathExtension(compiledExtension)
            guard FileManager.default.fileExists(atPath: mom.path) else {
                throw ModelFileError(
                    .unsupportedFormat, "optimized models (.omo) cannot be read; load the .mom of the same name", file: url)
            }
            return mom
        }
        switch url.pathExtension {
        case versionedExtension: return try contentsFile(for: try currentVersion(of: url))
        case compiledVersionedExtension: return try currentCompiledVersion(of: url)
        default: break
        }
        let contents = url.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) { return contents }
        let elements = url.appendingPathComponent("elements")
        if FileManager.default.fileExists(atPath: elements.path) { return elements }
        if !versions(in: url).isEmpty { return try contentsFile(for: try currentVersion(of: url)) }
        throw ModelFileError(.noSuchFile, "the folder has no model 'contents' file", file: contents)
    }

    /// Reads the file, turning file-system failures into Cocoa's file errors.
    static func data(of file: URL) throws -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            let code =
                FileManager.default.isReadableFile(atPath: file.path) ? NSFileReadUnknownError : NSFileReadNoPermissionError
            throw ModelFileError(
                .unreadable(code: code), "the file could not be read", file: file, underlying: error as NSError)
        }
    }

    /// A property list file as a dictionary.
    static func propertyList(at file: URL) throws -> [String: Any] {
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: try data(of: file), options: [], format: nil)
        } catch let error as ModelFileError {
            throw error
        } catch {
            throw ModelFileError(.corrupt, "not a property list", file: file, underlying: error as NSError)
        }
        guard let dictionary = plist as? [String: Any] else {
            throw ModelFileError(.corrupt, "the property list is not a dictionary", file: file)
        }
        return dictionary
    }

    // MARK: - Versions

    /// The `.xcdatamodel` versions directly inside a folder, in numeric order of their names
    /// without the extension ("Model", "Model 2", "Model 10").
    static func versions(in folder: URL) -> [URL] { files(in: folder, withExtension: versionExtension) }

    /// The compiled versions (`.mom` files) directly inside a `.momd` folder, in the same order.
    static func compiledVersions(in folder: URL) -> [URL] { files(in: folder, withExtension: compiledExtension) }

    /// The files or folders with `fileExtension` directly inside `folder`, in numeric order of
    /// their names without the extension.
    private static func files(in folder: URL, withExtension fileExtension: String) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return
            names
            .filter { ($0 as NSString).pathExtension == fileExtension }
            .map { ($0 as NSString).deletingPathExtension }
            .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
            .map { folder.appendingPathComponent($0 + "." + fileExtension) }
    }

    /// The current version of a `.momd` folder: the one `VersionInfo.plist` names, else the last.
    static func currentCompiledVersion(of folder: URL) throws -> URL {
        try currentVersion(
            of: folder, marker: "VersionInfo.plist", key: "NSManagedObjectModel_CurrentVersionName",
            fileExtension: compiledExtension, kind: "compiled model folder")
    }

    /// The current version of a versioned model: the one `.xccurrentversion` names, else the last.
    static func currentVersion(of folder: URL) throws -> URL {
        try currentVersion(
            of: folder, marker: ".xccurrentversion", key: "_XCCurrentVersionName", fileExtension: nil,
            kind: "versioned model")
    }

    /// The version `marker`'s `key` names (with `fileExtension` added when given), else the last
    /// version in the folder.
    private static func currentVersion(
        of folder: URL, marker: String, key: String, fileExtension: String?, kind: String
    ) throws -> URL {
        let markerFile = folder.appendingPathComponent(marker)
        if FileManager.default.fileExists(atPath: markerFile.path),
            let name = try propertyList(at: markerFile)[key] as? String, !name.isEmpty
        {
            let version = folder.appendingPathComponent(fileExtension.map { name + "." + $0 } ?? name)
            guard FileManager.default.fileExists(atPath: version.path) else {
                throw ModelFileError(.noSuchFile, "the current version '\(name)' named by \(marker) is missing", file: version)
            }
            return version
        }
        let extensionName = fileExtension ?? versionExtension
        guard let last = files(in: folder, withExtension: extensionName).last else {
            throw ModelFileError(.noSuchFile, "the \(kind) has no .\(extensionName) version", file: folder)
        }
        return last
    }

    // MARK: - Bundles

    /// Model files in a folder and its sub-folders, in path order: each `.xcdatamodeld` and
    /// `.momd`, and each `.xcdatamodel` and `.mom` that is not a version inside one. A compiled
    /// model beside the model file of the same name (`Model.momd` beside `Model.xcdatamodeld`,
    /// `Model.mom` beside `Model.xcdatamodel`) is the same model and is left out. Symbolic links
    /// are followed once; the search stops 16 folders deep.
    static func modelFiles(in folder: URL) -> [URL] {
        var found: [URL] = []
        var visited: Set<String> = []
        func search(_ folder: URL, depth: Int) {
            guard depth <= 16, visited.insert(folder.resolvingSymlinksInPath().path).inserted else { return }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            let nameSet = Set(names)
            for name in names.sorted() where !isHostCopy(name, besides: names) {
                let url = folder.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
                let base = (name as NSString).deletingPathExtension
                switch url.pathExtension {
                case versionedExtension, versionExtension:
                    if isDirectory.boolValue { found.append(url) }
                case compiledVersionedExtension:
                    if isDirectory.boolValue && !nameSet.contains(base + "." + versionedExtension) { found.append(url) }
                case compiledExtension:
                    if !isDirectory.boolValue && !nameSet.contains(base + "." + versionExtension) { found.append(url) }
                default:
                    if isDirectory.boolValue { search(url, depth: depth + 1) }
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
