import Foundation
import OpenPostgreSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Builds schema entities with family sets computed from the super links.
func makeSchema(_ entities: [(name: String, superID: Int?, abstract: Bool, properties: [PropertySchema])]) -> StoreSchema {
    var families = entities.indices.map { Set([$0 + 1]) }
    for (index, entity) in entities.enumerated() {
        var parent = entity.superID
        while let id = parent {
            families[id - 1].insert(index + 1)
            parent = entities[id - 1].superID
        }
    }
    return StoreSchema(
        entities: entities.enumerated().map { index, entity in
            let inherited = entity.superID.map { inheritedProperties(entities, $0) } ?? []
            return EntitySchema(
                id: index + 1, name: entity.name, isAbstract: entity.abstract, superID: entity.superID,
                familyIDs: families[index], properties: inherited + entity.properties)
        })
}

private func inheritedProperties(
    _ entities: [(name: String, superID: Int?, abstract: Bool, properties: [PropertySchema])], _ id: Int
)
    -> [PropertySchema]
{
    let entity = entities[id - 1]
    return (entity.superID.map { inheritedProperties(entities, $0) } ?? []) + entity.properties
}

func attribute(_ name: String, _ kind: AttributeKind) -> PropertySchema { PropertySchema(name: name, kind: .attribute(kind)) }

/// The library schema of the tests, numbered as Apple numbers entities:
///
/// - 1 Author: name; books (ordered to-many → Book, inverse author)
/// - 2 Book: cover (binary), price (decimal), published (date), title, uniqueID (UUID),
///   scratch (transient); author (→ Author), pages (→ Page), tags (many-to-many → Tag)
/// - 3 GraphicNovel (sub-entity of Book): isColor (Boolean)
/// - 4 Page: number (Int16); book (→ Book, which has a sub-entity)
/// - 5 Tag: name, url (URI); books (many-to-many → Book)
enum Library {
    static let author = 1, book = 2, graphicNovel = 3, page = 4, tag = 5

    static let schema = makeSchema([
        (
            "Author", nil, false,
            [
                attribute("name", .string),
                PropertySchema(name: "books", kind: .toMany(destination: 2, inverse: "author", ordered: true)),
            ]
        ),
        (
            "Book", nil, false,
            [
                attribute("cover", .binary), attribute("price", .decimal), attribute("published", .date),
                attribute("title", .string), attribute("uniqueID", .uuid),
                PropertySchema(name: "scratch", kind: .attribute(.string), isTransient: true),
                PropertySchema(name: "author", kind: .toOne(destination: 1, inverse: "books")),
                PropertySchema(name: "pages", kind: .toMany(destination: 4, inverse: "book", ordered: false)),
                PropertySchema(name: "tags", kind: .toMany(destination: 5, inverse: "books", ordered: false)),
            ]
        ),
        ("GraphicNovel", 2, false, [attribute("isColor", .boolean)]),
        (
            "Page", nil, false,
            [attribute("number", .integer16), PropertySchema(name: "book", kind: .toOne(destination: 2, inverse: "pages"))]
        ),
        (
            "Tag", nil, false,
            [
                attribute("name", .string), attribute("url", .uri),
                PropertySchema(name: "books", kind: .toMany(destination: 2, inverse: "tags", ordered: false)),
            ]
        ),
    ])
}

extension RowStore {
    /// Rows with the to-many members a store left unloaded (`.null`) read through
    /// `members(of:slot:)`, one call per slot, as the object layer reads them on demand.
    func withMembers(_ rows: [RowSnapshot]) throws -> [RowSnapshot] {
        var filled = rows
        for (index, row) in rows.enumerated() {
            for (slot, property) in schema.entity(row.key.entityID).properties.enumerated() {
                guard case .toMany = property.kind, row.values[slot] == .null, !property.isTransient else { continue }
                filled[index].values[slot] = .objects(try members(of: [row.key], slot: slot)[row.key] ?? [])
            }
        }
        return filled
    }

    /// Whether every to-many slot of the rows is unloaded (`.null`), as the SQLite store returns them.
    func leavesToManyUnloaded(_ rows: [RowSnapshot]) -> Bool {
        rows.allSatisfy { row in
            zip(schema.entity(row.key.entityID).properties, row.values).allSatisfy { property, value in
                if case .toMany = property.kind { return value == .null }
                return true
            }
        }
    }
}

/// The PostgreSQL store beside the SQLite one in the store-level tests, when a test server is
/// named (`OPENCOREDATA_POSTGRES_URL`; under CI a missing one fails the test instead).
enum PostgresStores {
    /// A new PostgreSQL store of `schema` in a fresh schema, dropped with `folder`; nil when no
    /// server is named (and this is not CI), or in a build without the store (the package trait
    /// `PostgreSQL` off).
    static func open(schema: StoreSchema, in folder: TemporaryFolder, tracksHistory: Bool = false) throws
        -> (any SQLRowStore & PagingRowStore)?
    {
        #if PostgreSQL
            guard PostgresTestServer.isEnabled else { return nil }
            let store = try PostgresTestServer.freshStoreURL()
            folder.onRemove { try? PostgreSQLRowStore.destroy(url: store) }
            return try PostgreSQLRowStore.open(url: store, schema: schema, modelVersionHashes: [:], tracksHistory: tracksHistory)
        #else
            return nil
        #endif
    }
}
