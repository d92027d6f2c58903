import SwiftData

// A trip planner's models, as a SwiftData app declares them.

@Model
final class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var budget: Double?
    var kind: Kind = Kind.leisure
    @Relationship(deleteRule: .cascade, inverse: \Item.trip) var items: [Item] = []
    var accommodation: Accommodation?
    @Transient var isSelected = false

    enum Kind: String, Codable {
        case leisure, business, family
    }

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }

    /// The length of the trip in whole days (not persisted: computed).
    var days: Int { Calendar(identifier: .gregorian).dateComponents([.day], from: startDate, to: endDate).day ?? 0 }
}

@Model
final class Item {
    var title: String
    var weight: Int
    var isPacked: Bool = false
    var priority: Priority = Priority.normal
    var trip: Trip?

    /// An enum whose raw type is not an attribute type of its own (stored as its raw value's JSON).
    enum Priority: UInt8, Codable {
        case low = 1, normal = 5, high = 9
    }

    init(title: String, weight: Int) {
        self.title = title
        self.weight = weight
    }
}

@Model
final class Accommodation {
    var placeName: String
    var address: Address?
    @Attribute(.externalStorage) var photo: Data?
    var trip: Trip?

    init(placeName: String) {
        self.placeName = placeName
    }
}

/// A `Codable` value stored in one attribute.
struct Address: Codable, Hashable {
    var street: String
    var city: String
}
