// `import SwiftData` on Linux: SwiftData's API on this package's Core Data engine. As Apple's
// module does, it brings Foundation (`#Predicate`, `SortDescriptor`, `Date`, …) with it.
@_exported import Foundation

/// Makes a class a SwiftData model: its stored properties are persisted, it conforms to
/// `PersistentModel`, and a `ModelContainer` made for it has an entity of its name.
///
/// ```swift
/// @Model
/// final class Trip {
///     var name: String
///     var startDate: Date
///     @Relationship(deleteRule: .cascade, inverse: \Item.trip) var items: [Item] = []
///     init(name: String, startDate: Date) { self.name = name; self.startDate = startDate }
/// }
/// ```
///
/// Every stored `var` with a type annotation that is not `@Transient` is persisted: numbers,
/// `Bool`, `String`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, enums with such raw values and
/// other `Codable` types as attributes; another model (optional or not) as a to-one
/// relationship, an array of models as a to-many relationship. Optionals are optional in the
/// schema. `@Attribute` and `@Relationship` give a property's options.
///
/// **Differences from Apple:** a `Codable` type that is not
/// a number, string, date, data, UUID, URL, decimal or raw-value enum is stored as its JSON
/// encoding in a binary attribute; a to-many array's order is not kept (on Apple neither).
@attached(member, names: named(persistentBackingData), named(init(backingData:)), named(schemaMetadata))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "OpenCoreDataMacros", type: "ModelMacro")

/// What `@Model` puts on each persisted property: its accessors read and write the model's
/// backing data. Not for use in your own code.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty() = #externalMacro(module: "OpenCoreDataMacros", type: "PersistedPropertyMacro")

/// Options of a persisted attribute of a `@Model` class: `@Attribute(.unique) var code: String`.
/// `originalName` is the attribute's name in the previous schema version (a rename, for
/// migration). `hashModifier` is accepted and has no effect.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "OpenCoreDataMacros", type: "SchemaMarkerMacro")

/// Options of a relationship of a `@Model` class: its delete rule (**default** `.nullify`), its
/// inverse (**default:** the one relationship of the destination back to this model, when
/// there is exactly one), its counts and its previous name.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "OpenCoreDataMacros", type: "SchemaMarkerMacro")

/// A stored property of a `@Model` class that is not persisted: it keeps its value in the
/// instance only (it needs a default value).
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenCoreDataMacros", type: "SchemaMarkerMacro")

/// Makes the combinations of properties given unique across a `@Model` class's models, each
/// list one constraint: `#Unique<Trip>([\.name], [\.start, \.end])`. Inserting a model whose
/// values match a stored one's updates that one (an upsert), as `@Attribute(.unique)` does.
@freestanding(declaration, names: named(_uniquenessConstraints))
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenCoreDataMacros", type: "ModelKeyPathListMacro")

/// Indexes a `@Model` class's table by properties, each list one index:
/// `#Index<Trip>([\.name], [\.start, \.end])`.
@freestanding(declaration, names: named(_indexKeyPaths))
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenCoreDataMacros", type: "ModelKeyPathListMacro")
