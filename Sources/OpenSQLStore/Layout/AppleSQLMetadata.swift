import OpenPredicate
import OpenStoreCore

/// A store's metadata as Apple keeps it: the one row of `Z_METADATA`
/// (`Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB`), whose `Z_PLIST` is a
/// binary property list with these keys (every real store has them):
///
/// - `NSStoreType`: `"SQLite"`; `NSStoreUUID`: the same UUID as `Z_UUID`;
/// - `NSStoreModelVersionHashes`: entity name → 32-byte SHA-256 version hash;
/// - `NSStoreModelVersionIdentifiers`: the model's version identifiers (`[""]` when unset,
///   `[]` in stores written before 2013);
/// - `NSStoreModelVersionHashesVersion`: 3; `NSPersistenceFrameworkVersion`: the writer's
///   Core Data version (241 in 2010 … 1344 in 2024);
/// - sometimes `_NSAutoVacuumLevel` (`"2"`), `NSStoreModelVersionHashesDigest`,
///   `NSStoreModelVersionChecksumKey`, and the user's own keys (`setMetadata`).
///
/// ```swift
/// var metadata = AppleSQLMetadata(versionHashes: ["Book": hash])
/// try metadata.write(to: connection)
/// let read = try AppleSQLMetadata.read(from: connection)
/// read.versionHashes["Book"]  // hash
/// ```
///
/// The whole dictionary is kept (`dictionary`), so keys this type does not know survive a
/// rewrite; the typed properties read and write their keys in it.
package struct AppleSQLMetadata {
    /// `Z_VERSION`: 1 in every real store.
    package var version: Int64
    /// Every key of the property list.
    package var dictionary: [String: Any]

    /// The `NSStoreType` value of SQLite stores.
    package static let storeType = "SQLite"
    /// `NSPersistenceFrameworkVersion` written into new stores: the newest version seen in real
    /// stores (2024), so that Apple's Core Data treats the file as one it wrote itself.
    package static let frameworkVersion = 1344

    /// Metadata for a new store: a fresh UUID, the model's hashes and identifiers, and Apple's
    /// constant keys.
    package init(
        versionHashes: [String: Data], versionIdentifiers: [String] = [""], uuid: UUID = UUID(),
        frameworkVersion: Int = AppleSQLMetadata.frameworkVersion
    ) {
        version = 1
        dictionary = [
            "NSStoreType": AppleSQLMetadata.storeType,
            "NSStoreUUID": uuid.uuidString,
            "NSStoreModelVersionHashes": versionHashes,
            "NSStoreModelVersionIdentifiers": versionIdentifiers,
            "NSStoreModelVersionHashesVersion": 3,
            "NSPersistenceFrameworkVersion": frameworkVersion,
            "_NSAutoVacuumLevel": "2",
        ]
    }

    init(version: Int64, dictionary: [String: Any]) {
        self.version = version
        self.dictionary = dictionary
    }

    // MARK: - Typed keys

    /// `NSStoreUUID` (falls back to nothing: `Z_UUID` is written from it).
    package var storeUUID: String? {
        get { dictionary["NSStoreUUID"] as? String }
        set { dictionary["NSStoreUUID"] = newValue }
    }

    /// `NSStoreType`.
    package var storeTypeName: String? { dictionary["NSStoreType"] as? String }

    /// `NSStoreModelVersionHashes`: entity name → version hash.
    package var versionHashes: [String: Data] {
        get {
            guard let raw = dictionary["NSStoreModelVersionHashes"] as? [String: Any] else { return [:] }
            return raw.compactMapValues { $0 as? Data }
        }
        set { dictionary["NSStoreModelVersionHashes"] = newValue }
    }

    /// `NSStoreModelVersionIdentifiers`.
    package var versionIdentifiers: [String] {
        get { (dictionary["NSStoreModelVersionIdentifiers"] as? [Any])?.compactMap { $0 as? String } ?? [] }
        set { dictionary["NSStoreModelVersionIdentifiers"] = newValue }
    }

    /// `NSPersistenceFrameworkVersion`.
    package var persistenceFrameworkVersion: Int? { AppleSQLMetadata.integer(dictionary["NSPersistenceFrameworkVersion"]) }

    /// `NSStoreModelVersionHashesVersion`.
    package var versionHashesVersion: Int? { AppleSQLMetadata.integer(dictionary["NSStoreModelVersionHashesVersion"]) }

    private static func integer(_ value: Any?) -> Int? {
        switch value {
        case let value as Int: return value
        case let value as Int64: return Int(exactly: value)
        case let value as NSNumber: return value.intValue
        default: return nil
        }
    }

    // MARK: - Reading and writing

    /// The DDL of the metadata table, as Apple writes it.
    package static let tableDDL = "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)"

    /// The metadata of a `Z_METADATA` row, checked as `read(from:)` says; `path` names the store
    /// in errors.
    package static func decode(version: Int64, uuid: String?, plist: Data?, path: String) throws -> AppleSQLMetadata {
        let damaged = { (what: String) in
            SQLStoreError.invalidType(
                "The metadata of the store \(path) is damaged: Z_METADATA.Z_PLIST \(what). The file's metadata can't be "
                    + "trusted, so it is not opened (this is not a model mismatch)",
                path: path, damagedMetadata: true)
        }
        guard let data = plist, !data.isEmpty else { throw damaged("is empty") }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw damaged("is not a property list (\(error.localizedDescription))")
        }
        guard var dictionary = plist as? [String: Any] else { throw damaged("is not a dictionary") }
        guard let hashes = dictionary["NSStoreModelVersionHashes"] as? [String: Any] else {
            throw damaged("has no NSStoreModelVersionHashes dictionary")
        }
        if let entity = hashes.first(where: { !($0.value is Data) })?.key {
            throw damaged("has a version hash for \(entity) that is not data")
        }
        if dictionary["NSStoreUUID"] == nil, let uuid { dictionary["NSStoreUUID"] = uuid }
        return AppleSQLMetadata(version: version, dictionary: dictionary)
    }

    /// `Z_PLIST`: the dictionary as a binary property list; `path` names the store in errors.
    package func encodedPlist(path: String) throws -> Data {
        do {
            return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        } catch {
            throw SQLStoreError.operation("Can't encode the store metadata: \(error.localizedDescription)", path: path)
        }
    }
}
