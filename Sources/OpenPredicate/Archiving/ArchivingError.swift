import Foundation

/// Why a predicate, expression or sort descriptor could not be archived or unarchived.
///
/// Outside it becomes an `NSError` in `NSCocoaErrorDomain`: `NSCoderInvalidValueError` (4866)
/// when writing, as Apple's archiver reports an object it cannot encode;
/// `NSCoderReadCorruptError` (4864) when reading, with the offending key in `userInfo`.
struct ArchivingError: Error, CustomStringConvertible {
    enum Direction {
        case encoding, decoding
    }

    let direction: Direction
    /// What is wrong, naming the culprit (`NSLeftExpression is a NSString, not an NSExpression`).
    let message: String
    /// The archive key being read or written, if one is to blame.
    let key: String?
    /// True when a nested object has already reported its failure to the coder: the object
    /// around it only stops decoding, so the coder is not told twice.
    let isAlreadyReported: Bool

    var description: String { message }

    /// A value, expression or predicate that cannot be written (a block, an unsupported constant).
    static func unarchivable(_ message: String, key: String? = nil) -> ArchivingError {
        ArchivingError(direction: .encoding, message: message, key: key, isAlreadyReported: false)
    }

    /// An archive that does not hold what a predicate, expression or sort descriptor writes.
    static func malformed(_ message: String, key: String? = nil) -> ArchivingError {
        ArchivingError(direction: .decoding, message: message, key: key, isAlreadyReported: false)
    }

    /// A nested object failed and the coder already knows; stop quietly.
    static let nestedFailure = ArchivingError(
        direction: .decoding, message: "a nested object failed to decode", key: nil, isAlreadyReported: true)

    /// A tree nested deeper than `ArchiveLimits.maxDepth`.
    static func tooDeep(_ direction: Direction) -> ArchivingError {
        let verb = direction == .encoding ? "archive" : "unarchive"
        return ArchivingError(
            direction: direction,
            message: "Can't \(verb) a predicate nested deeper than \(ArchiveLimits.maxDepth) objects",
            key: nil, isAlreadyReported: false)
    }

    var nsError: NSError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message, NSDebugDescriptionErrorKey: message]
        if let key { userInfo["NSArchiveKey"] = key }
        let code: CocoaError.Code = direction == .encoding ? .coderInvalidValue : .coderReadCorrupt
        return NSError(domain: NSCocoaErrorDomain, code: code.rawValue, userInfo: userInfo)
    }
}
