import OpenPredicate
import OpenStoreCore

/// A row as predicates, expressions and sort descriptors see it: `value(forKey:)` reads a slot.
///
/// - Attributes give the Swift value a Core Data user reads back (`Int16`/`Int32`/`Int64` by
///   kind, `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`).
/// - A to-one relationship gives the destination's view (so `department.name` works), or nil
///   when it is empty or its destination no longer exists.
/// - A to-many relationship gives an array of the destinations' views, in the slot's order (so
///   `ANY employees.salary > 5`, `employees.@count` and `SUBQUERY(employees, …)` work).
/// - `self` is the view; `objectID` is the row's `ObjectKey`.
/// - Any other key gives nil and is remembered, so the fetch fails naming it.
///
/// A view compares equal (`==`, `IN`) to its row's `ObjectKey` and to other views of that row,
/// so the object and object-ID constants the coordinator turns into keys match.
///
/// Three words: kept inline in an existential, so evaluating a predicate over a row allocates
/// nothing for the view itself.
struct RowView: KeyValueCodable, PredicateIdentity {
    let graph: RowGraph
    /// The index of the row's table in `graph.tables`.
    let table: Int
    /// The row's position in its table.
    let position: Int

    /// The row (always there: views are made for live positions of the graph's frozen tables).
    var row: RowSnapshot? { graph.tables[table].rows[position] }

    var key: ObjectKey? { graph.tables[table].rows[position]?.key }

    /// The row's key (a key no row has, for a position that is empty, which never happens).
    var predicateIdentity: AnyHashable {
        AnyHashable(key ?? ObjectKey(entityID: 0, primaryKey: 0))
    }

    func value(forKey key: String) -> Any? {
        guard let row else { return nil }
        let layout = graph.layouts[row.key.entityID - 1]
        guard let slot = layout.slotsByName[key] else {
            switch key {
            case "self": return self
            case "objectID": return row.key
            default:
                graph.noteUnknownKey(key, entity: layout.name)
                return nil
            }
        }
        let value = row.values[slot]
        switch layout.slots[slot] {
        case .attribute(let kind):
            return value.swiftValue(kind: kind)
        case .toOne:
            guard case .object(let destination) = value else { return nil }
            return graph.view(for: destination)
        case .toMany:
            guard case .objects(let destinations) = value else { return [RowView]() }
            return destinations.compactMap { graph.view(for: $0) }
        }
    }
}
