import Foundation

/// Sort descriptors archive under Apple's keys: `NSKey` (absent for a nil key), `NSAscending`
/// and `NSSelector`, the name of the comparison selector.
///
/// Descriptors with a comparator block cannot be archived (Apple raises "NSSortDescriptor using
/// Blocks cannot be encoded."; here the archiver's `error` is set). The archive names the class
/// `OpenPredicate.KeyedSortDescriptor`: the name is part of the archive format, so renaming the
/// class makes existing archives unreadable.
extension KeyedSortDescriptor: NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    func encode(with coder: NSCoder) {
        PredicateArchiver.write(to: coder) { () throws(ArchivingError) in
            guard comparatorBox == nil else { throw .unarchivable("NSSortDescriptor using Blocks cannot be encoded.") }
            if let keyString { coder.encode(keyString, forKey: ArchiveKey.key) }
            coder.encode(ascending, forKey: ArchiveKey.ascending)
            coder.encode(selectorName ?? SortComparison.defaultSelector, forKey: ArchiveKey.selector)
        }
    }

    convenience init?(coder: NSCoder) {
        let decoded = PredicateUnarchiver.read(coder) { reader throws(ArchivingError) in
            let key = try reader.optionalString(ArchiveKey.key)
            let ascending = try reader.bool(ArchiveKey.ascending)
            let selector = try reader.string(ArchiveKey.selector)
            guard SortComparison.isSupported(selector) else {
                throw .malformed("NSSortDescriptor selector '\(selector)' is not supported", key: ArchiveKey.selector)
            }
            return (key: key, ascending: ascending, selector: selector)
        }
        guard let decoded else { return nil }
        self.init(key: decoded.key, ascending: decoded.ascending, selector: decoded.selector)
    }
}
