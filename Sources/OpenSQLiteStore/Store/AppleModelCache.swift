import CZlib
import Foundation
import OpenSQLStore

/// The copy of its model Apple's Core Data keeps in a store: the table `Z_MODELCACHE`, one row,
/// one column `Z_CONTENT`, written by recent versions of the framework (stores of framework
/// version 754 have it, of 241 not), so that a store can be opened (and migrated from) when no
/// bundled model version matches it.
///
/// What is known of the format, and inferred here (Apple documents none of it):
/// - `Z_CONTENT` is a raw DEFLATE stream (RFC 1951: no zlib or gzip header), found by inflating
///   the caches of the stores Apple's Core Data wrote that this project's tests read.
/// - Inflated, it is a compiled model: the binary keyed archive of an `NSManagedObjectModel`
///   that Xcode's model compiler writes as a `.mom` file.
/// - The table may hold more than one row in principle; Apple's stores hold one, and the first
///   is read.
package enum AppleModelCache {
    /// Compiled models are small (tens of kilobytes); a cache that inflates past this is refused
    /// as damaged or hostile rather than filling memory.
    package static let inflatedLimit = 64 << 20

    /// The compiled model (`.mom` bytes) cached in the store on `connection`; nil when the store
    /// has no `Z_MODELCACHE` table or the table is empty.
    ///
    /// - Throws: `NSPersistentStoreInvalidTypeError` naming the file when the cache is there but
    ///   cannot be read (not a DEFLATE stream, truncated, or larger than `inflatedLimit`
    ///   inflated); `userInfo["NSStoreModelCacheDamaged"]` is `true`.
    package static func compiledModel(from connection: SQLiteConnection) throws -> Data? {
        guard try connection.tableExists("Z_MODELCACHE") else { return nil }
        let statement = try connection.statement("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
        defer { statement.reset() }
        guard try statement.step(), let content = statement.data(at: 0) else { return nil }
        do {
            return try inflate(content)
        } catch {
            let path = connection.url.path
            throw SQLStoreError.make(
                code: SQLStoreError.invalidTypeCode,
                reason: "The model cached in \(path) (Z_MODELCACHE) is damaged: \(error.text)", path: path,
                extra: [damagedKey: true])
        }
    }

    /// The `userInfo` key, set to `true`, of an error about a damaged model cache.
    package static let damagedKey = "NSStoreModelCacheDamaged"

    /// Why a stream did not inflate.
    package struct InflateFailure: Error {
        package let text: String
    }

    /// Inflates a raw DEFLATE stream, refusing one that ends early, has bytes after its end, or
    /// inflates past `limit` bytes.
    package static func inflate(_ compressed: Data, limit: Int = inflatedLimit) throws(InflateFailure) -> Data {
        var stream = z_stream()
        // Negative window bits: a raw stream, without zlib's header and checksum.
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw InflateFailure(text: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var status = Z_OK
        var input = [UInt8](compressed)
        let inputCount = input.count
        try input.withUnsafeMutableBufferPointer { (input) throws(InflateFailure) in
            stream.next_in = input.baseAddress
            stream.avail_in = uInt(inputCount)
            while status == Z_OK {
                let produced = chunk.withUnsafeMutableBufferPointer { chunk -> Int in
                    stream.next_out = chunk.baseAddress
                    stream.avail_out = uInt(chunk.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return chunk.count - Int(stream.avail_out)
                }
                if status == Z_BUF_ERROR, stream.avail_in == 0 { throw InflateFailure(text: "the stream ends early") }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw InflateFailure(text: "not a DEFLATE stream (zlib error \(status))")
                }
                guard output.count + produced <= limit else {
                    throw InflateFailure(text: "it inflates past \(limit >> 20) MB")
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_OK, produced == 0, stream.avail_in == 0 {
                    throw InflateFailure(text: "the stream ends early")
                }
            }
        }
        guard stream.avail_in == 0 else { throw InflateFailure(text: "bytes follow the end of the stream") }
        return output
    }
}
