import Foundation

/// Archiving predicates and sort descriptors inside another object's archive (a fetch request
/// encodes its `predicate` and `sortDescriptors` this way).
///
/// ```swift
/// func encode(with coder: NSCoder) {
///     PredicateArchiving.encode(predicate, forKey: "NSPredicate", to: coder)
///     PredicateArchiving.encode(sortDescriptors, forKey: "NSSortDescriptors", to: coder)
/// }
///
/// init?(coder: NSCoder) {
///     do {
///         predicate = try PredicateArchiving.decodePredicate(forKey: "NSPredicate", from: coder)
///         sortDescriptors = try PredicateArchiving.decodeSortDescriptors(forKey: "NSSortDescriptors", from: coder)
///     } catch {
///         return nil  // the coder has been told
///     }
/// }
/// ```
///
/// corelibs' own `NSPredicate(value:)`, `NSPredicate(block:)`, `NSCompoundPredicate(type:…)` and
/// `NSSortDescriptor(keyPath:…)` cannot conform to `NSSecureCoding` (corelibs removed it, and
/// `init?(coder:)` can only be added in a class's body), and corelibs' archiver stops the process
/// when asked to archive them securely. These helpers convert what can be converted into
/// OpenPredicate's classes first, and report the rest as errors.
package enum PredicateArchiving {
    /// The classes to allow when decoding a predicate or an array of sort descriptors with
    /// `decodeObject(of:forKey:)` (the helpers below use them).
    package static var allowedClasses: [AnyClass] { ArchiveReader.classes }

    // MARK: - Converting

    /// `predicate` as an object that archives: itself when it is one of OpenPredicate's
    /// predicates, an equivalent one for corelibs' value and compound predicates.
    ///
    /// - Throws: an `NSError` (`NSCoderInvalidValueError`) when some part cannot be archived: a
    ///   block predicate (Apple cannot archive blocks either) or another foreign subclass, a
    ///   block expression, a constant of an unsupported type, or nesting deeper than the archive
    ///   limit.
    package static func archivable(_ predicate: Foundation.NSPredicate) throws -> NSPredicate {
        let node = PredicateTree.node(predicate)
        do {
            try PredicateArchiver.check(node)
        } catch {
            throw error.nsError
        }
        return predicate as? NSPredicate ?? PredicateTree.predicate(node)
    }

    /// `sortDescriptor` itself when it archives: one made with `init(key:ascending:)` or
    /// `init(key:ascending:selector:)`.
    ///
    /// - Throws: an `NSError` (`NSCoderInvalidValueError`) for a descriptor with a comparator
    ///   block or a Swift key path with no string form, and for corelibs' own
    ///   `init(keyPath:ascending:)` descriptors, whose comparison is a Swift closure that cannot
    ///   be told apart from a custom comparator.
    package static func archivable(_ sortDescriptor: Foundation.NSSortDescriptor) throws -> NSSortDescriptor {
        guard let keyed = sortDescriptor as? NSSortDescriptor else {
            throw ArchivingError.unarchivable(
                "Can't archive a sort descriptor made with corelibs' init(keyPath:ascending:): its comparison is a "
                    + "Swift closure; use init(key:ascending:) or import CoreData"
            ).nsError
        }
        guard keyed.keyPathReader == nil else {
            throw ArchivingError.unarchivable("Can't archive a sort descriptor whose Swift key path has no string form")
                .nsError
        }
        guard keyed.comparatorBox == nil else {
            throw ArchivingError.unarchivable("NSSortDescriptor using Blocks cannot be encoded.").nsError
        }
        return keyed
    }

    // MARK: - Encoding

    /// Archives `predicate` under `key`, converted with `archivable(_:)`; nothing for nil. What
    /// cannot be archived is reported to the coder (an `NSKeyedArchiver`'s `error`).
    package static func encode(_ predicate: Foundation.NSPredicate?, forKey key: String, to coder: NSCoder) {
        guard let predicate else { return }
        do {
            coder.encode(try archivable(predicate), forKey: key)
        } catch {
            report(error, forKey: key, to: coder)
        }
    }

    /// Archives `sortDescriptors` as an array under `key`; nothing for nil. What cannot be
    /// archived is reported to the coder (an `NSKeyedArchiver`'s `error`).
    package static func encode(_ sortDescriptors: [Foundation.NSSortDescriptor]?, forKey key: String, to coder: NSCoder) {
        guard let sortDescriptors else { return }
        do {
            coder.encode(try sortDescriptors.map { try archivable($0) } as NSArray, forKey: key)
        } catch {
            report(error, forKey: key, to: coder)
        }
    }

    private static func report(_ error: Error, forKey key: String, to coder: NSCoder) {
        let message = (error as NSError).localizedDescription
        PredicateArchiver.report(.unarchivable(message, key: key), to: coder)
    }

    // MARK: - Decoding

    /// The predicate archived under `key`, or nil when there is none.
    ///
    /// - Throws: an `NSError` when the archive is malformed; the coder has already been told
    ///   (`failWithError(_:)`), so an `init?(coder:)` should just return nil.
    package static func decodePredicate(forKey key: String, from coder: NSCoder) throws -> NSPredicate? {
        guard let object = try decodeObject(forKey: key, from: coder) else { return nil }
        guard let predicate = object as? NSPredicate else {
            throw fail(.malformed("\(key) is a \(type(of: object)), not an NSPredicate", key: key), coder)
        }
        return predicate
    }

    /// The sort descriptors archived under `key`, or nil when there are none.
    ///
    /// - Throws: an `NSError` when the archive is malformed; the coder has already been told.
    package static func decodeSortDescriptors(
        forKey key: String, from coder: NSCoder
    ) throws -> [NSSortDescriptor]? {
        guard let object = try decodeObject(forKey: key, from: coder) else { return nil }
        guard let array = object as? NSArray else {
            throw fail(.malformed("\(key) is a \(type(of: object)), not an array", key: key), coder)
        }
        var descriptors: [NSSortDescriptor] = []
        for element in array {
            guard let descriptor = element as? NSSortDescriptor else {
                throw fail(.malformed("\(key) holds a \(type(of: element)), not an NSSortDescriptor", key: key), coder)
            }
            descriptors.append(descriptor)
        }
        return descriptors
    }

    private static func decodeObject(forKey key: String, from coder: NSCoder) throws -> Any? {
        guard coder.containsValue(forKey: key) else { return nil }
        let object = coder.decodeObject(of: allowedClasses, forKey: key)
        // Something inside failed (corelibs leaves a failed element out of an array, so the
        // object may still be there) and the unarchiver recorded why.
        if let unarchiver = coder as? NSKeyedUnarchiver, let error = unarchiver.error {
            throw error
        }
        return object
    }

    private static func fail(_ error: ArchivingError, _ coder: NSCoder) -> Error {
        coder.failWithError(error.nsError)
        return error.nsError
    }
}
