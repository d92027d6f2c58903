import Foundation
import OpenStoreCore

/// How Apple's SQLite store keeps the values of attributes that allow external binary data
/// storage (`NSAttributeDescription.allowsExternalBinaryDataStorage`): in the row, or in a file
/// beside the store.
///
/// ```swift
/// AppleExternalData.folder(forStoreAt: URL(fileURLWithPath: "/data/Shop.sqlite"))
/// // /data/.Shop_SUPPORT/_EXTERNAL_DATA
/// AppleExternalData.inlineColumn(Data([0xCA, 0xFE]))  // 01 CA FE
/// AppleExternalData.fileColumn("5E1A…")               // 02 "5E1A…" 00
/// ```
///
/// ## The layout, and what it is inferred from
///
/// Apple does not document the layout. What follows is what is publicly known of the files
/// Apple's Core Data writes (blog posts and forum threads that looked inside stores, and
/// code that reads them), and is what this store reads and writes:
///
/// - **The folder.** For a store `/dir/Name.sqlite` the files are in
///   `/dir/.Name_SUPPORT/_EXTERNAL_DATA/`: the store file's name without its extension, after
///   a dot, before `_SUPPORT`.
/// - **The files.** One file per value kept outside its row, named by an upper-case UUID
///   string without extension, holding the value's bytes exactly.
/// - **The column** of such an attribute is a `BLOB` whose first byte says where the value is:
///   `0x01` followed by the value's bytes (kept in the row), or `0x02` followed by the file's
///   name as ASCII text and a NUL byte (kept in a file). NULL stays NULL. Other binary
///   attributes are plain `BLOB`s.
/// - **The threshold.** Apple decides per value, "heuristically": an Apple engineer said (Ask
///   Apple, 2022) that values above about 100 KB go to a file; a blog measured 1 MB on Mac OS X
///   Lion. *Our choice:* values strictly larger than `threshold` (100 × 1024 bytes) go to a
///   file, the others stay in the row. Reading accepts both markers whatever the size.
///
/// **Our choices where nothing is known:** a column of a flagged attribute that starts with
/// neither marker (a store written before the attribute was flagged), or that starts with
/// `0x02` but does not hold a UUID and a NUL after it, is read as the plain bytes it holds. A
/// plain value that happens to start with `0x01` cannot be told from a marked one: it reads
/// without its first byte (Apple's reader cannot tell them apart either).
///
/// **Not covered:** a uniqueness constraint naming such an attribute compares the column, not
/// the value; persistent history keeps a deleted row's preserved value of it
/// (`preservesValueInHistoryOnDeletion`) as plain bytes in its tombstone.
package enum AppleExternalData {
    /// The first byte of a column holding the value after it.
    package static let inlineMarker: UInt8 = 0x01
    /// The first byte of a column naming the file that holds the value.
    package static let fileMarker: UInt8 = 0x02
    /// The largest value kept in its row: larger ones go to a file. 100 KB, after what an Apple
    /// engineer said of Apple's heuristic (our choice; see the type's discussion).
    package static let threshold = 100 * 1024

    /// Where one column's value is.
    package enum Column: Equatable {
        /// In the row: the value's bytes.
        case inline(Data)
        /// In the file with this name, in the store's external data folder.
        case file(String)
        /// No marker: the column's bytes are the value.
        case plain(Data)
    }

    /// The hidden support folder of the store at `storeURL`: `.<name>_SUPPORT` beside it, where
    /// `<name>` is the file's name without its extension.
    package static func supportFolder(forStoreAt storeURL: URL) -> URL {
        let name = storeURL.deletingPathExtension().lastPathComponent
        return storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
    }

    /// The folder of the external values of the store at `storeURL`:
    /// `.<name>_SUPPORT/_EXTERNAL_DATA` beside it.
    package static func folder(forStoreAt storeURL: URL) -> URL {
        supportFolder(forStoreAt: storeURL).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// What a column of a flagged attribute holds (see the type's discussion).
    package static func parse(_ column: Data) -> Column {
        guard let first = column.first else { return .plain(column) }
        switch first {
        case inlineMarker:
            return .inline(Data(column.dropFirst()))
        case fileMarker:
            guard column.count > 2, column.last == 0,
                let name = String(bytes: column.dropFirst().dropLast(), encoding: .ascii),
                UUID(uuidString: name) != nil
            else { return .plain(column) }
            return .file(name)
        default:
            return .plain(column)
        }
    }

    /// The column of a value kept in its row: `0x01` and the value's bytes.
    package static func inlineColumn(_ value: Data) -> Data {
        var column = Data(capacity: value.count + 1)
        column.append(inlineMarker)
        column.append(value)
        return column
    }

    /// The column of a value kept in the file `name`: `0x02`, the name in ASCII, `0x00`.
    package static func fileColumn(_ name: String) -> Data {
        var column = Data([fileMarker])
        column.append(contentsOf: Array(name.utf8))
        column.append(0)
        return column
    }

    /// The name of a new file: a new UUID, upper case, as Apple names them.
    static func newFileName() -> String { UUID().uuidString.uppercased() }
}

extension AppleSQLLayout {
    /// Whether the column of `slot` of an entity holds its values in Apple's external data
    /// layout: the file has an external data folder (`externalData`) and the slot is a binary
    /// or transformable attribute that allows external storage.
    package func keepsExternalData(entity entityID: Int, slot: Int) -> Bool {
        guard externalData != nil, schema.entities.indices.contains(entityID - 1) else { return false }
        let properties = schema.entities[entityID - 1].properties
        guard properties.indices.contains(slot), properties[slot].allowsExternalBinaryDataStorage,
            case .attribute(let kind) = properties[slot].kind
        else { return false }
        return kind == .binary || kind == .transformable
    }

    /// The slots of an entity whose columns hold values in Apple's external data layout
    /// (`keepsExternalData(entity:slot:)`).
    package func externalDataSlots(of entityID: Int) -> [Int] {
        guard externalData != nil, schema.entities.indices.contains(entityID - 1) else { return [] }
        return schema.entities[entityID - 1].properties.indices.filter { keepsExternalData(entity: entityID, slot: $0) }
    }
}
