import CZlib
import Foundation

/// Compresses data as a raw DEFLATE stream (no zlib header), as Apple's Core Data compresses
/// the model it caches in a store (`Z_MODELCACHE`), for tests that write such a cache.
public enum RawDeflate {
    /// `data` compressed; nil if zlib fails.
    public static func compress(_ data: Data) -> Data? {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let outputCount = output.count
        let status = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                stream.next_in = input.baseAddress
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(outputCount)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Data(output[0..<(outputCount - Int(stream.avail_out))])
    }
}
