import Foundation

/// A fresh folder in the system's temporary folder for one test, removed (with whatever else was
/// registered with `onRemove(_:)`) when the value is released.
///
/// ```swift
/// let folder = try TemporaryFolder()
/// let store = folder.file("Company.sqlite")
/// ```
public final class TemporaryFolder {
    /// The folder.
    public let url: URL
    /// What else goes with the folder (stores on the PostgreSQL test server, say).
    private var cleanUps: [() -> Void] = []

    /// Creates the folder `<prefix>-<UUID>` in the temporary folder.
    public init(prefix: String = "opencoredata-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
        for cleanUp in cleanUps { cleanUp() }
    }

    /// Runs `cleanUp` when the folder is removed.
    public func onRemove(_ cleanUp: @escaping () -> Void) { cleanUps.append(cleanUp) }

    /// The URL of `name` in the folder (nothing is created).
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `text` at `path` (sub-folders created) and returns its URL.
    @discardableResult
    public func write(_ text: String, to path: String) throws -> URL {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }
}

/// Folders for helpers that hand out a URL rather than a `TemporaryFolder` (a store made for a
/// test and returned inside a container): removed when the test process exits.
public enum ExitRemovedFolders {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var folders: [URL] = []

    /// Creates the folder `<prefix>-<UUID>` in the temporary folder, removed at exit.
    public static func make(prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        lock.withLock {
            if folders.isEmpty { atexit { ExitRemovedFolders.removeAll() } }
            folders.append(url)
        }
        return url
    }

    private static func removeAll() {
        for folder in lock.withLock({ folders }) { try? FileManager.default.removeItem(at: folder) }
    }
}
