import Foundation

/// The team's shared folder of real-world model files and Apple-written stores
/// (`../shared/realworld` beside the package), absent in a fresh clone: tests that need it are
/// skipped then.
///
/// ```swift
/// @Suite(.enabled(if: RealWorld.hasStores, "../shared/realworld/stores is not beside the package"))
/// …
/// let store = try RealWorld.copyStore("apple-recipes-2010", into: folder.url).appendingPathComponent("Recipes.sqlite")
/// ```
public enum RealWorld {
    /// `../shared/realworld` beside the package, whether or not it is there.
    private static let root: URL = {
        // #filePath is <package>/Tests/TestSupport/RealWorld.swift.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.deletingLastPathComponent().appendingPathComponent("shared/realworld")
    }()

    /// The shared folder, when it is there (with its `models` folder).
    public static let folder: URL? =
        FileManager.default.fileExists(atPath: root.appendingPathComponent("models").path) ? root : nil

    /// Whether the shared folder is there.
    public static var isAvailable: Bool { folder != nil }

    /// The file or folder at `relativePath` in the shared folder, when the folder is there.
    public static func url(_ relativePath: String) -> URL? { folder?.appendingPathComponent(relativePath) }

    /// The Apple-written stores (`stores`), when they are there (with their inventory, `README.md`).
    public static let stores: URL? = {
        let stores = root.appendingPathComponent("stores")
        return FileManager.default.fileExists(atPath: stores.appendingPathComponent("README.md").path) ? stores : nil
    }()

    /// Whether the Apple-written stores are there.
    public static var hasStores: Bool { stores != nil }

    /// The error of a copy when the stores are not there.
    public struct Missing: Error, CustomStringConvertible {
        /// What is missing.
        public var description: String { "../shared/realworld/stores is not beside the package" }
    }

    /// Copies the store folder `directory` (the store with its `-wal` and `-shm` files) into
    /// `folder` and returns the copy, writable: the shared files are read-only, and SQLite writes
    /// the `-shm` file of a WAL store even to read. The originals are never opened.
    /// - Throws: `Missing` when the stores are not there; file errors.
    public static func copyStore(_ directory: String, into folder: URL) throws -> URL {
        guard let stores else { throw Missing() }
        let target = folder.appendingPathComponent(directory)
        try FileManager.default.copyItem(at: stores.appendingPathComponent(directory), to: target)
        for name in try FileManager.default.contentsOfDirectory(atPath: target.path) {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o644], ofItemAtPath: target.appendingPathComponent(name).path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: target.path)
        return target
    }
}
