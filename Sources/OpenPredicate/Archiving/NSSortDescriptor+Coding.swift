import Foundation

/// Sort descriptors archive under Apple's keys: `NSKey` (absent for a nil key), `NSAscending`
/// and `NSSelector`, the name of the comparison selector.
///
/// Descriptors with a comparator block cannot be archived (Apple raises "NSSortDescriptor using
/// Blocks cannot be encoded."; here the archiver's `error` is set). The archive names the class
/// `OpenPredicate.NSSortDescriptor`.
extension NSSortDescriptor {
    /// True: sort descriptors archive with `NSKeyedArchiver` and are read back by a secure
    /// `NSKeyedUnarchiver`.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the descriptor under Apple's keys: `NSKey` (absent for a nil key), `NSAscending`
    /// and `NSSelector`. A descriptor with a comparator block, or made from a Swift key path with
    /// no string form, sets the archiver's `error` (Apple raises for blocks).
    public func encode(with coder: NSCoder) {
        PredicateArchiver.write(to: coder) { () throws(ArchivingError) in
            guard comparatorBox == nil else { throw .unarchivable("NSSortDescriptor using Blocks cannot be encoded.") }
            guard keyPathReader == nil else {
                throw .unarchivable("Can't archive a sort descriptor whose Swift key path has no string form")
            }
            if let keyString { coder.encode(keyString, forKey: ArchiveKey.key) }
            coder.encode(ascending, forKey: ArchiveKey.ascending)
            coder.encode(selectorName ?? SortComparison.defaultSelector, forKey: ArchiveKey.selector)
        }
    }

    /// The key, direction and selector of an archived descriptor, validated; nil (with the coder
    /// told) for anything else.
    static func decode(from coder: NSCoder) -> (key: String?, ascending: Bool, selector: String)? {
        PredicateUnarchiver.read(coder) { reader throws(ArchivingError) in
            let key = try reader.optionalString(ArchiveKey.key)
            let ascending = try reader.bool(ArchiveKey.ascending)
            let selector = try reader.string(ArchiveKey.selector)
            guard SortComparison.isSupported(selector) else {
                throw .malformed("NSSortDescriptor selector '\(selector)' is not supported", key: ArchiveKey.selector)
            }
            return (key: key, ascending: ascending, selector: selector)
        }
    }
}
