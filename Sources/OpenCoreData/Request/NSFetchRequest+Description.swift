import OpenPredicate

extension NSFetchRequest {
    /// Apple's layout (Core Data's `-[NSFetchRequest description]`): the entity, predicate and
    /// sort descriptors always, then only what differs from the defaults, each part ending in
    /// `; `, lists printed as `NSArray` prints them. Only the object's address is left out.
    var requestDescription: String {
        let settings = settings
        var out = "<NSFetchRequest> (entity: \(settings.entityName ?? "(null)"); "
        out += "predicate: (\(settings.predicate?.description ?? "(null)")); "
        out += "sortDescriptors: (\(settings.sortDescriptors.map(PropertyListText.array) ?? "(null)")); "
        if settings.fetchLimit != 0 { out += "limit: \(settings.fetchLimit); " }
        if settings.fetchOffset != 0 { out += "offset: \(settings.fetchOffset); " }
        if settings.fetchBatchSize != 0 { out += "batch size: \(settings.fetchBatchSize); " }
        out += "type: \(settings.resultType.appleName ?? "unknown request type"); "
        if let stores = affectedStores {
            out += "affected stores: (\(PropertyListText.array(stores.map { $0.identifier ?? "(null)" }))); "
        }
        if !includesSubentities { out += "includesSubentities: NO; " }
        if !includesPropertyValues { out += "includesPropertyValues: NO; " }
        if !returnsObjectsAsFaults { out += "returnsObjectsAsFaults: NO; " }
        if !includesPendingChanges { out += "includesPendingChanges: NO; " }
        if returnsDistinctResults { out += "returnsDistinctResults: YES; " }
        if shouldRefreshRefetchedObjects { out += "shouldRefreshRefetchedObjects: YES; " }
        if let keyPaths = settings.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty {
            out += "relationshipKeyPathsForPrefetching: (\(PropertyListText.array(keyPaths))); "
        }
        if let properties = settings.propertiesToFetch, !properties.isEmpty {
            out += "propertiesToFetch: (\(PropertyListText.array(properties))); "
        }
        if let having = settings.havingPredicate { out += "havingPredicate: (\(having.description)); " }
        if let groupBy = settings.propertiesToGroupBy, !groupBy.isEmpty {
            out += "propertiesToGroupBy: (\(PropertyListText.array(groupBy))); "
        }
        return out + ")"
    }
}

extension NSFetchRequestResultType {
    /// Apple's constant name (`NSManagedObjectResultType`, …); nil for a value that is not one
    /// of the four.
    var appleName: String? {
        switch self {
        case .managedObjectResultType: return "NSManagedObjectResultType"
        case .managedObjectIDResultType: return "NSManagedObjectIDResultType"
        case .dictionaryResultType: return "NSDictionaryResultType"
        case .countResultType: return "NSCountResultType"
        default: return nil
        }
    }
}

/// Values printed the way Foundation's `description` prints property lists (old-style
/// `NSArray` text), for descriptions that copy Apple's.
enum PropertyListText {
    /// `(\n    a,\n    "b c"\n)`; an empty array is `(\n)`.
    static func array(_ elements: [Any]) -> String {
        if elements.isEmpty { return "(\n)" }
        return "(\n" + elements.map { "    " + quotedIfNeeded(text(of: $0)) }.joined(separator: ",\n") + "\n)"
    }

    static func text(of element: Any) -> String {
        if let string = element as? String { return string }
        if let object = element as? NSObject { return object.description }
        return String(describing: element)
    }

    /// Bare when made only of letters, digits and `_$./:-`, as property list text allows;
    /// otherwise quoted with `"` and `\` escaped and control characters spelled out.
    static func quotedIfNeeded(_ text: String) -> String {
        let bare =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "_$./:-".unicodeScalars.contains(scalar))
            }
        return bare ? text : PredicatePrinter.quote(text)
    }
}
