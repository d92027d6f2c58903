import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore

#if PostgreSQL
    import OpenPostgreSQLStore
#endif

// Store-level builders: schemas as the stores see them (`StoreSchema`), for the tests of the
// store modules, below the model classes.

/// Builds schema entities with family sets computed from the super links.
package func makeSchema(_ entities: [(name: String, superID: Int?, abstract: Bool, properties: [PropertySchema])]) -> StoreSchema {
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

/// The date `days` days after the reference date (2001-01-01).
package func day(_ days: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(days) * 86_400) }

/// A decimal number from its text (NaN for text that is not one).
package func dec(_ string: String) -> Decimal { Decimal(string: string) ?? .nan }

/// An attribute of the stores' schema.
package func attribute(_ name: String, _ kind: AttributeKind) -> PropertySchema { PropertySchema(name: name, kind: .attribute(kind)) }

/// The library schema of the tests, numbered as Apple numbers entities:
///
/// - 1 Author: name; books (ordered to-many → Book, inverse author)
/// - 2 Book: cover (binary), price (decimal), published (date), title, uniqueID (UUID),
///   scratch (transient); author (→ Author), pages (→ Page), tags (many-to-many → Tag)
/// - 3 GraphicNovel (sub-entity of Book): isColor (Boolean)
/// - 4 Page: number (Int16); book (→ Book, which has a sub-entity)
/// - 5 Tag: name, url (URI); books (many-to-many → Book)
package enum Library {
    /// The entities' IDs.
    package static let author = 1, book = 2, graphicNovel = 3, page = 4, tag = 5

    /// The schema.
    package static let schema = makeSchema([
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
    package func withMembers(_ rows: [RowSnapshot]) throws -> [RowSnapshot] {
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
    package func leavesToManyUnloaded(_ rows: [RowSnapshot]) -> Bool {
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
package enum PostgresStores {
    /// A new PostgreSQL store of `schema` in a fresh schema, dropped with `folder`; nil when no
    /// server is named (and this is not CI), or in a build without the store (the package trait
    /// `PostgreSQL` off).
    package static func open(schema: StoreSchema, in folder: TemporaryFolder, tracksHistory: Bool = false) throws
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

/// A library with every kind of relationship: ordered to-many (authors' books, in an order that
/// is not `Z_PK` order), to-many by inverse (books' pages), many-to-many (books and tags), a
/// sub-entity (graphic novels) and a transient slot.
package enum Shelf {
    package static func author(_ n: Int64) -> ObjectKey { ObjectKey(entityID: Library.author, primaryKey: n) }
    package static func book(_ n: Int64) -> ObjectKey { ObjectKey(entityID: n % 3 == 0 ? Library.graphicNovel : Library.book, primaryKey: n) }
    package static func page(_ n: Int64) -> ObjectKey { ObjectKey(entityID: Library.page, primaryKey: n) }
    package static func tag(_ n: Int64) -> ObjectKey { ObjectKey(entityID: Library.tag, primaryKey: n) }

    /// Books 1…8 (every third a graphic novel); author 1 wrote 5, 2, 7 in that order, author 2
    /// wrote 8, 1, author 3 none; book n has pages 2n-1 and 2n, except book 4 has none; tag 1 is
    /// on every odd book, tag 2 on books 2 and 3, tag 3 on none.
    package static let authorBooks: [[Int64]] = [[5, 2, 7], [8, 1], []]

    package static func rows() -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        for (index, books) in authorBooks.enumerated() {
            rows.append(RowSnapshot(key: author(Int64(index + 1)), version: 1, values: [.string("Author \(index + 1)"), .objects(books.map(book))]))
        }
        let tags: [Int64: [Int64]] = [1: [1, 3, 5, 7], 2: [2, 3], 3: []]
        for n in Int64(1)...8 {
            let writer = authorBooks.firstIndex { $0.contains(n) }.map { StoreValue.object(author(Int64($0 + 1))) } ?? .null
            let pages: [ObjectKey] = n == 4 ? [] : [page(2 * n - 1), page(2 * n)]
            let tagged = tags.keys.sorted().filter { tags[$0]?.contains(n) ?? false }.map(tag)
            var values: [StoreValue] = [
                .data(Data([UInt8(n)])), .decimal(Decimal(n) + Decimal(string: "0.25")!), .date(Date(timeIntervalSinceReferenceDate: Double(n) * 1000)),
                .string("Book \(n)"), .uuid(UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!), .null, writer, .objects(pages),
                .objects(tagged),
            ]
            if n % 3 == 0 { values.append(.bool(n == 3)) }
            rows.append(RowSnapshot(key: book(n), version: 1, values: values))
        }
        for n in Int64(1)...16 where !(7...8).contains(n) {
            rows.append(RowSnapshot(key: page(n), version: 1, values: [.integer(n), .object(book((n + 1) / 2))]))
        }
        for n in Int64(1)...3 {
            rows.append(
                RowSnapshot(
                    key: tag(n), version: 1,
                    values: [.string("tag \(n)"), .null, .objects(tags[n, default: []].map(book))]))
        }
        return rows
    }

    package static func store(in folder: TemporaryFolder) throws -> SQLiteRowStore {
        let store = try SQLiteRowStore.open(at: folder.file("Shelf.sqlite"), schema: Library.schema, readOnly: false, modelVersionHashes: [:])
        try store.apply(inserted: rows(), updated: [], deleted: [])
        return store
    }
}
