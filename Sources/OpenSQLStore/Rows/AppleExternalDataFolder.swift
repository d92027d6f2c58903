import Foundation
import OpenStoreCore

/// The external data folder of one SQLite store file (`AppleExternalData`): reads the values
/// its columns point to, writes the files of new values, and removes the files a committed
/// transaction no longer points to.
///
/// ```swift
/// let folder = AppleExternalDataFolder(storeURL: url)
/// let column = try folder.column(for: photo, entity: "Item", attribute: "photo")  // file written if large
/// let mark = folder.mark()
/// // … the save's statements; on a refusal: folder.rollBack(to: mark)
/// folder.transactionCommitted()   // after COMMIT: files no row points to any more are removed
/// ```
///
/// The file-keeping rules (our choices; Apple removes unreferenced files too, when is not
/// documented):
/// - A new value's file is written, and flushed to disk with its folder's entry, before the
///   statement that points to it runs, so a committed row never names a file that is not there.
/// - A file a save stops pointing to (the row updated to another value, or deleted) is
///   removed only after the `COMMIT` that stops pointing to it succeeded; while fetches on
///   other connections of the same store are running (they may read the rows as they were
///   before that commit), the removal waits until none is left (`reading(_:)`).
/// - A transaction, or a savepoint, that is rolled back removes the files it wrote (best
///   effort: a file left over is never pointed to, and harmless). When the outcome of a
///   `COMMIT` is unknown (an I/O error), no file is removed.
///
/// Another process or coordinator reading the same file while a save removes a value's old
/// file may find it gone: that read fails with the missing-file error (`readError`), and a
/// fetch after it reads the new value.
///
/// `@unchecked Sendable`: the transaction's lists and the read count are behind `lock`.
package final class AppleExternalDataFolder: @unchecked Sendable {
    /// `.<name>_SUPPORT/_EXTERNAL_DATA` beside the store; nil for an in-memory database
    /// (`/dev/null`), whose values all stay in their rows.
    package let url: URL?
    /// The store file, named in errors.
    let storePath: String
    private let lock = NSLock()
    /// Files the open transaction wrote.
    private var written: [URL] = []
    /// Files the open transaction stops pointing to.
    private var unreferenced: [URL] = []
    /// Fetches running on connections of the store other than the one that commits.
    private var reads = 0
    /// Files unreferenced by a committed transaction, waiting for `reads` to reach 0.
    private var waitingRemovals: [URL] = []

    /// The folder of the store at `storeURL`; `inMemory` for a database without a file.
    package init(storeURL: URL, inMemory: Bool) {
        url = inMemory ? nil : AppleExternalData.folder(forStoreAt: storeURL)
        storePath = storeURL.path
    }

    // MARK: - Reading

    /// The value a column of a flagged attribute stands for: the bytes after `0x01`, the file's
    /// bytes after `0x02`, or the column itself without a marker.
    /// - Throws: `readError` when the file is missing or unreadable.
    package func value(ofColumn column: Data, entity: String, attribute: String) throws -> Data {
        switch AppleExternalData.parse(column) {
        case .inline(let value), .plain(let value):
            return value
        case .file(let name):
            guard let url else {
                throw readError(name: name, path: name, entity: entity, attribute: attribute, underlying: nil)
            }
            let file = url.appendingPathComponent(name, isDirectory: false)
            do {
                return try Data(contentsOf: file)
            } catch {
                throw readError(name: name, path: file.path, entity: entity, attribute: attribute, underlying: error)
            }
        }
    }

    /// The error for a value whose file is missing or unreadable: `NSCocoaErrorDomain`,
    /// `NSFileReadNoSuchFileError` (260) for a missing file and `NSFileReadUnknownError` (256)
    /// otherwise, the message naming the entity, the attribute, the file and the store; the
    /// file's path under `NSFilePathErrorKey`, the names under `entity` and `attribute`, the
    /// store's path under `NSPersistentStoreFilePath`.
    ///
    /// **Differences from Apple:** what Apple does is not documented (it logs "External data
    /// reference can't find underlying file" and gives nil); here the fetch, or the fault,
    /// fails with this error.
    func readError(name: String, path: String, entity: String, attribute: String, underlying: Error?) -> NSError {
        let missing = !FileManager.default.fileExists(atPath: path)
        let what = missing ? "is missing" : "can't be read"
        var extra: [String: Any] = ["entity": entity, "attribute": attribute, "NSPersistentStoreFilePath": storePath]
        if let underlying { extra[NSUnderlyingErrorKey] = underlying }
        return SQLStoreError.make(
            code: missing ? CocoaError.fileReadNoSuchFile.rawValue : CocoaError.fileReadUnknown.rawValue,
            reason: "The value of \(entity).\(attribute) is kept outside the store \(storePath), in the file \(path), "
                + "which \(what)",
            path: path, extra: extra)
    }

    /// Runs `body`, a fetch on a connection of the store other than the one that commits, so
    /// that no file it may read is removed meanwhile (see the type's discussion).
    package func reading<T>(_ body: () throws -> T) rethrows -> T {
        lock.withLock { reads += 1 }
        defer {
            let removals: [URL] = lock.withLock {
                reads -= 1
                guard reads == 0 else { return [] }
                defer { waitingRemovals = [] }
                return waitingRemovals
            }
            Self.remove(removals)
        }
        return try body()
    }

    // MARK: - Writing

    /// The column for `value` of a flagged attribute: `0x01` and the bytes when they are at most
    /// `AppleExternalData.threshold` (or the store has no folder); otherwise a new file holding
    /// them, written and flushed now, and `0x02`, its name, `0x00`.
    /// - Throws: `NSPersistentStoreSaveError` naming the entity, attribute and file when the file
    ///   can't be written.
    package func column(for value: Data, entity: String, attribute: String) throws -> Data {
        guard let url, value.count > AppleExternalData.threshold else { return AppleExternalData.inlineColumn(value) }
        let name = AppleExternalData.newFileName()
        let file = url.appendingPathComponent(name, isDirectory: false)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
            lock.withLock { written.append(file) }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.write(contentsOf: value)
            try handle.synchronize()
            // The folder's entry for the file, too (best effort: not every file system lets a
            // folder be flushed).
            if let folder = FileHandle(forReadingAtPath: url.path) {
                try? folder.synchronize()
                try? folder.close()
            }
        } catch {
            throw SQLStoreError.make(
                code: SQLStoreError.saveCode,
                reason: "Can't write the value of \(entity).\(attribute) to \(file.path), beside the store \(storePath): "
                    + error.localizedDescription,
                path: storePath, extra: ["entity": entity, "attribute": attribute, NSUnderlyingErrorKey: error])
        }
        return AppleExternalData.fileColumn(name)
    }

    /// Whether `column` points to a file holding exactly `value` (an update that leaves a value as
    /// it was keeps its file).
    package func column(_ column: Data, holds value: Data) -> Bool {
        guard let url, case .file(let name) = AppleExternalData.parse(column) else { return false }
        let file = url.appendingPathComponent(name, isDirectory: false)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber,
            size.intValue == value.count
        else { return false }
        return (try? Data(contentsOf: file)) == value
    }

    /// Notes that the open transaction stops pointing to the file `column` names, if any: it is
    /// removed once the transaction commits.
    package func noteUnreferenced(column: Data) {
        guard let url, case .file(let name) = AppleExternalData.parse(column) else { return }
        let file = url.appendingPathComponent(name, isDirectory: false)
        lock.withLock { unreferenced.append(file) }
    }

    // MARK: - Transactions

    /// Where the open transaction's lists are: a savepoint's start.
    package struct Mark {
        let written: Int
        let unreferenced: Int
    }

    /// The open transaction's lists as they are now (see `rollBack(to:)`).
    package func mark() -> Mark {
        lock.withLock { Mark(written: written.count, unreferenced: unreferenced.count) }
    }

    /// A savepoint begun at `mark` was rolled back: the files written since are removed, the
    /// files unreferenced since are kept.
    package func rollBack(to mark: Mark) {
        let removals: [URL] = lock.withLock {
            defer {
                written.removeSubrange(min(mark.written, written.count)...)
                unreferenced.removeSubrange(min(mark.unreferenced, unreferenced.count)...)
            }
            return Array(written[min(mark.written, written.count)...])
        }
        Self.remove(removals)
    }

    /// The open transaction committed: the files it stops pointing to are removed (when no
    /// fetch on another connection is running; otherwise when the last one ends).
    package func transactionCommitted() {
        let removals: [URL] = lock.withLock {
            defer { (written, unreferenced) = ([], []) }
            guard reads == 0 else {
                waitingRemovals += unreferenced
                return []
            }
            return unreferenced
        }
        Self.remove(removals)
    }

    /// The open transaction was rolled back: the files it wrote are removed.
    package func transactionRolledBack() {
        let removals: [URL] = lock.withLock {
            defer { (written, unreferenced) = ([], []) }
            return written
        }
        Self.remove(removals)
    }

    /// The outcome of the open transaction's `COMMIT` is unknown: every file is kept (a file
    /// left over is harmless, one removed too early loses a value).
    package func transactionOutcomeUnknown() {
        lock.withLock { (written, unreferenced) = ([], []) }
    }

    /// Runs `body` as a transaction of its own (`SQLiteConnection.transaction` and the like):
    /// `transactionCommitted()` when it returns, `transactionRolledBack()` when it throws.
    package func transaction<T>(_ body: () throws -> T) rethrows -> T {
        do {
            let value = try body()
            transactionCommitted()
            return value
        } catch {
            transactionRolledBack()
            throw error
        }
    }

    /// Removes files, best effort (one already gone is no error).
    private static func remove(_ files: [URL]) {
        for file in files { try? FileManager.default.removeItem(at: file) }
    }
}
