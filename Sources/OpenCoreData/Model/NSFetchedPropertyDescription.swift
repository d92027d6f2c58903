import OpenPredicate

/// A property whose value is the result of a fetch request, evaluated lazily for each object:
/// a weak, one-way relationship. Its predicate may use `$FETCH_SOURCE` (the object whose
/// property is read) and `$FETCHED_PROPERTY` (this description).
///
/// Like every part of a model, a fetched property description can be edited until the model is
/// used by a coordinator ("Editing Fetched Property Descriptions" in Apple's documentation);
/// after that a change stops the process with "Can't modify an immutable model.".
///
/// See [NSFetchedPropertyDescription](https://developer.apple.com/documentation/coredata/nsfetchedpropertydescription).
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as `NSPropertyDescription` (its fetch request is made immutable with the
    // model).

    /// The request whose results are the property's value. **Default:** `nil`.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        willSet { ensureEditable() }
    }

    override func copyValues(from other: NSPropertyDescription) {
        super.copyValues(from: other)
        if let other = other as? NSFetchedPropertyDescription {
            fetchRequest = other.fetchRequest.map { $0.copyRequest() }
        }
    }

    override var kindDescription: String { "fetched property" }

    override var detailDescriptions: [String] {
        fetchRequest.map { ["fetch \($0.entityName ?? "?") where \($0.predicate?.description ?? "TRUEPREDICATE")"] } ?? []
    }
}
