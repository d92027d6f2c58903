import Synchronization

/// A reference to an entity that does not keep it alive and reads nil once it is gone, as a
/// `weak` reference does, for the model's own back references (a property's entity, a
/// relationship's destination, a super-entity, an index's entity).
///
/// A `weak` reference gives the object it references a side table for good, and every retain
/// and release of such an object then takes the runtime's slow path: every fetched object
/// retains its entity several times on its way out of a fetch. An entity makes one
/// `EntityReference` of itself, which the references share and which its `deinit` marks gone.
///
/// As Apple's `unowned(unsafe)` back references, reading one on one thread while the entity's
/// last strong reference goes on another is a race; a model is shared across threads only
/// while something keeps it.
final class EntityReference: Sendable {
    private unowned(unsafe) let target: NSEntityDescription
    private let alive = Atomic(true)

    init(_ entity: NSEntityDescription) {
        target = entity
    }

    /// The entity, or nil once it is gone.
    var entity: NSEntityDescription? {
        alive.load(ordering: .acquiring) ? target : nil
    }

    /// Called by the entity's `deinit`.
    func entityIsGone() {
        alive.store(false, ordering: .releasing)
    }
}
