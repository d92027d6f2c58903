import CoreData
import Foundation
import Hummingbird

/// A book as the API shows it: plain values, `Sendable`, so it can leave the context's queue
/// (an `NSManagedObject` cannot: it belongs to its context).
struct BookDTO: Codable, Equatable, Sendable, ResponseEncodable {
    var id: UUID
    var title: String
    var author: String
    var year: Int
    var rating: Double?
    var createdAt: Date

    /// The values of a book, read on its context's queue.
    init(_ book: Book) {
        id = book.id
        title = book.title
        author = book.author
        year = Int(book.year)
        rating = book.rating?.doubleValue
        createdAt = book.createdAt
    }
}

/// The body of `POST /books`.
struct NewBook: Codable, Sendable {
    var title: String
    var author: String
    var year: Int
    var rating: Double?

    init(title: String, author: String, year: Int, rating: Double? = nil) {
        self.title = title
        self.author = author
        self.year = year
        self.rating = rating
    }
}

/// The body of `PATCH /books/:id`: the fields to change, the others left as they are.
/// `"rating": null` removes the rating; a missing `rating` leaves it.
struct BookPatch: Codable, Sendable {
    var title: String?
    var author: String?
    var year: Int?
    /// nil: leave the rating; `.some(nil)`: remove it.
    var rating: Double??

    init(title: String? = nil, author: String? = nil, year: Int? = nil, rating: Double?? = nil) {
        self.title = title
        self.author = author
        self.year = year
        self.rating = rating
    }

    private enum CodingKeys: String, CodingKey {
        case title, author, year, rating
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        author = try container.decodeIfPresent(String.self, forKey: .author)
        year = try container.decodeIfPresent(Int.self, forKey: .year)
        if container.contains(.rating) {
            rating = .some(try container.decodeNil(forKey: .rating) ? nil : container.decode(Double.self, forKey: .rating))
        } else {
            rating = nil
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encodeIfPresent(year, forKey: .year)
        if let rating {
            try container.encode(rating, forKey: .rating)  // a nil rating as null
        }
    }
}

/// The values a request may store, checked before a context sees them.
enum BookRules {
    /// Throws `400 Bad Request` naming the first value out of bounds.
    static func check(title: String?, author: String?, year: Int?, rating: Double??) throws(HTTPError) {
        if let title, title.trimmingCharacters(in: .whitespaces).isEmpty {
            throw HTTPError(.badRequest, message: "title must not be empty")
        }
        if let author, author.trimmingCharacters(in: .whitespaces).isEmpty {
            throw HTTPError(.badRequest, message: "author must not be empty")
        }
        if let year, Int32(exactly: year) == nil {
            throw HTTPError(.badRequest, message: "year \(year) is out of range")
        }
        if case .some(.some(let rating)) = rating, !(0...5).contains(rating) {
            throw HTTPError(.badRequest, message: "rating must be between 0 and 5, not \(rating)")
        }
    }
}
