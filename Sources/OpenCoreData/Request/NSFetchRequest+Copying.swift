import OpenPredicate

extension NSFetchRequest {
    /// A copy of every setting, with its own arrays, so that changing the copy never changes the
    /// original (`copy(with:)` returns it). Predicates and sort descriptors are immutable and
    /// shared; the entity, the stores and property descriptions are shared, as Apple shares
    /// them. A copy of a template of a model in use is editable.
    func copyRequest() -> NSFetchRequest<ResultType> { copyRequest(as: ResultType.self) }

    /// A copy (see `copyRequest()`) whose results are of another type: the same request seen
    /// as `NSFetchRequest<NSFetchRequestResult>`, for instance.
    func copyRequest<Other>(as type: Other.Type) -> NSFetchRequest<Other> {
        let copy = NSFetchRequest<Other>()
        copy.settings = settings
        copy.affectedStores = affectedStores
        return copy
    }
}
