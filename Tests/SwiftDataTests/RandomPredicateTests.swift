import SwiftData
import TestSupport
import XCTest

/// Random Swift predicates over models, from a fixed seed: each fetch keeps what Swift's own
/// evaluation of the predicate keeps, on every store.
final class RandomPredicateTests: XCTestCase {
    typealias Condition = PredicateCondition

    private static let names = ["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch", "Dracula", "Ivanhoe", "Persuasion"]
    private static let places = ["Lisbon", "Oslo", "Rome", "Lima"]
    /// Not empty: `"Dune".contains("")` is true in Swift, and `CONTAINS ""` matches nothing.
    private static let fragments = ["e", "Du", "ma", "x", "Em", "an", "D", "ss"]

    func testRandomPredicatesFetchWhatSwiftEvaluates() throws {
        var stores: [(String, ModelConfiguration)] = [
            ("in-memory", ModelConfiguration(isStoredInMemoryOnly: true))
        ]
        let folder = try TemporaryFolder(prefix: "SwiftDataRandom")
        stores.append(("SQLite", ModelConfiguration(url: folder.file("Random.store"))))
        if PostgresTestServer.isEnabled {
            let url = try PostgresTestServer.freshStoreURL()
            folder.onRemove { PostgresTestServer.destroy(url) }
            stores.append(("PostgreSQL", ModelConfiguration(url: url)))
        }
        for (store, configuration) in stores {
            var random = SplitMix64(seed: 2023)
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: configuration))
            for name in Self.names {
                let start = Double(Int.random(in: 0...400, using: &random)) * 86_400
                let trip = Trip(
                    name: name, destination: Self.places.randomElement(using: &random) ?? "",
                    startDate: Date(timeIntervalSinceReferenceDate: start),
                    endDate: Date(timeIntervalSinceReferenceDate: start + 86_400 * 3))
                trip.budget = Bool.random(using: &random) ? Double(Int.random(in: 1...20, using: &random)) * 100 : nil
                trip.kind = [.leisure, .business, .family][Int.random(in: 0..<3, using: &random)]
                trip.items = (0..<Int.random(in: 0...3, using: &random)).map {
                    Item(title: "\(name) \($0)", weight: Int.random(in: 1...9, using: &random))
                }
                context.insert(trip)
            }
            try context.save()
            let trips = try context.fetch(FetchDescriptor<Trip>())
            XCTAssertEqual(trips.count, Self.names.count)
            var partial = 0
            for round in 0..<150 {
                let predicate = Predicate<Trip> { trip in Self.condition(trip, depth: 3, &random) }
                let kept = try Set(trips.filter { try predicate.evaluate($0) }.map(\.name))
                let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(\.name))
                XCTAssertEqual(fetched, kept, "\(store), round \(round): \(predicate)")
                XCTAssertEqual(
                    try context.fetchCount(FetchDescriptor(predicate: predicate)), kept.count, "\(store), round \(round)")
                if !kept.isEmpty && kept.count < trips.count { partial += 1 }
            }
            XCTAssertGreaterThan(partial, 50, "most predicates keep some trips and not others (\(store))")
        }
    }

    private static func condition(_ trip: PredicateExpressions.Variable<Trip>, depth: Int, _ random: inout SplitMix64)
        -> Condition
    {
        if depth > 0, Int.random(in: 0..<3, using: &random) == 0 {
            let left = condition(trip, depth: depth - 1, &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return PredicateConditions.both(left, condition(trip, depth: depth - 1, &random))
            case 1: return PredicateConditions.either(left, condition(trip, depth: depth - 1, &random))
            default: return PredicateConditions.not(left)
            }
        }
        let name = PredicateExpressions.KeyPath(root: trip, keyPath: \Trip.name)
        let destination = PredicateExpressions.KeyPath(root: trip, keyPath: \Trip.destination)
        let operators: [PredicateExpressions.ComparisonOperator] = [
            .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
        ]
        let op = operators[Int.random(in: 0..<4, using: &random)]
        switch Int.random(in: 0..<9, using: &random) {
        case 0:
            let start = PredicateExpressions.KeyPath(root: trip, keyPath: \Trip.startDate)
            let day = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...400, using: &random)) * 86_400)
            return PredicateExpressions.Comparison(lhs: start, rhs: PredicateExpressions.Value(day), op: op)
        case 1:
            let budget = PredicateExpressions.KeyPath(root: trip, keyPath: \Trip.budget)
            return Bool.random(using: &random)
                ? PredicateExpressions.Equal(lhs: budget, rhs: PredicateExpressions.NilLiteral<Double>())
                : PredicateExpressions.NotEqual(
                    lhs: budget, rhs: PredicateExpressions.Value(Double?(Double(Int.random(in: 1...20, using: &random)) * 100)))
        case 2:
            return PredicateExpressions.Equal(
                lhs: destination, rhs: PredicateExpressions.Value(places.randomElement(using: &random) ?? ""))
        case 3:
            return PredicateExpressions.Comparison(
                lhs: name, rhs: PredicateExpressions.Value(names.randomElement(using: &random) ?? ""), op: op)
        case 4:
            return PredicateExpressions.CollectionContainsCollection(
                base: name, other: PredicateExpressions.Value(fragments.randomElement(using: &random) ?? ""))
        case 5:
            return PredicateExpressions.SequenceStartsWith(
                base: destination, prefix: PredicateExpressions.Value(fragments.randomElement(using: &random) ?? ""))
        case 6:
            let kind = PredicateExpressions.KeyPath(root: trip, keyPath: \Trip.kind)
            let kinds: [Trip.Kind] = [.leisure, .business, .family]
            return PredicateExpressions.Equal(
                lhs: kind, rhs: PredicateExpressions.Value(kinds[Int.random(in: 0..<3, using: &random)]))
        case 7:
            let items = PredicateExpressions.KeyPath(root: trip, keyPath: \Trip.items)
            let count = PredicateExpressions.KeyPath(root: items, keyPath: \[Item].count)
            return PredicateExpressions.Comparison(
                lhs: count, rhs: PredicateExpressions.Value(Int.random(in: 0...3, using: &random)), op: op)
        default:
            let items = PredicateExpressions.KeyPath(root: trip, keyPath: \Trip.items)
            let limit = Int.random(in: 1...9, using: &random)
            return PredicateExpressions.build_contains(items) { item in
                PredicateExpressions.Comparison(
                    lhs: PredicateExpressions.KeyPath(root: item, keyPath: \Item.weight), rhs: PredicateExpressions.Value(limit),
                    op: op)
            }
        }
    }
}
