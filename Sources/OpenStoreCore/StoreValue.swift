import OpenPredicate

/// The number of a row in its entity's table: the entity's number and the primary key (Apple's
/// `Z_ENT` and `Z_PK`). Object IDs of saved objects wrap one.
///
/// Public only for `SQLRowDecoder`'s `decode` methods (see there): no product holds this module.
public struct ObjectKey: Hashable, Sendable, CustomStringConvertible {
    package let entityID: Int
    package let primaryKey: Int64

    @usableFromInline package init(entityID: Int, primaryKey: Int64) {
        self.entityID = entityID
        self.primaryKey = primaryKey
    }

    /// `entity/p key`, as in logs.
    public var description: String { "\(entityID)/p\(primaryKey)" }
}

/// A stored value: one case per kind of value a store keeps, so that comparison, sorting and
/// SQL binding never go through `Any`.
///
/// Public only for `SQLRowDecoder`'s `decode` methods (see there): no product holds this module.
public enum StoreValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    /// A to-one relationship's destination.
    case object(ObjectKey)
    /// A to-many relationship's destinations (in order for an ordered one).
    case objects([ObjectKey])
}

/// A row as a store hands it out: the object's key, its optimistic-locking version (`Z_OPT`) and
/// one value per slot of its entity (`EntitySchema.properties`).
///
/// Public only for `SQLRowDecoder`'s `decode` methods (see there): no product holds this module.
public struct RowSnapshot: Sendable {
    package let key: ObjectKey
    package var version: Int64
    package var values: [StoreValue]

    @usableFromInline package init(key: ObjectKey, version: Int64, values: [StoreValue]) {
        self.key = key
        self.version = version
        self.values = values
    }
}
