import OpenPredicate

/// Apple's rule: a model, its entities and their properties are editable until a persistent
/// store coordinator uses the model; after that every mutation raises
/// `NSInternalInconsistencyException` with this reason. A copy of the model is editable again.
enum ModelEditing {
    static let immutableModelReason = "Can't modify an immutable model."

    static func refuse() -> Never {
        AppleException.internalInconsistency(immutableModelReason)
    }
}

/// Parts of a model (entities, properties, fetch indexes) know the model they belong to, and so
/// whether they may still change.
protocol ModelPart: AnyObject {
    /// The model this part belongs to, if any; a part outside any model is always editable.
    var owningModel: NSManagedObjectModel? { get }
}

extension ModelPart {
    /// Stops with Apple's reason when the owning model is in use.
    func ensureEditable() {
        if let model = owningModel, !model.isEditable { ModelEditing.refuse() }
    }
}
