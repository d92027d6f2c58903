import Foundation
import Hummingbird

/// What `GET /books` asks for, read from its query string:
/// `where=<predicate format>&sort=year,-title&limit=20&offset=40`.
///
/// Only the syntax of the query string is checked here; the predicate and the sort keys are
/// parsed and checked against the model on the context's queue (see `BookStore.list`).
struct BookQuery: Sendable, Equatable {
    /// One sort key: an attribute name, descending when the parameter wrote `-` before it.
    struct SortKey: Sendable, Equatable {
        var key: String
        var ascending: Bool
    }

    /// How many books a page holds when `limit` is not given.
    static let defaultLimit = 100
    /// The largest page a client may ask for.
    static let maximumLimit = 1_000

    /// An `NSPredicate` format string, as the client wrote it (`year > 1950 AND author BEGINSWITH "T"`).
    var predicateFormat: String?
    /// The order; by title when the client gives none.
    var sort: [SortKey] = [SortKey(key: "title", ascending: true)]
    var limit = BookQuery.defaultLimit
    var offset = 0

    init() {}

    /// Reads `where`, `sort`, `limit` and `offset` from a query string, as HTML forms and
    /// `curl -G --data-urlencode` write it: `+` is a space, `%XX` a byte (so a `+` of a predicate
    /// is `%2B`).
    /// - Throws: `400 Bad Request` for an empty sort key, or a limit or offset that is not a
    ///   number in range.
    init(query: String?) throws(HTTPError) {
        var parameters: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            parameters[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        try self.init(parameters)
    }

    private init(_ parameters: [String: String]) throws(HTTPError) {
        if let format = parameters["where"], !format.trimmingCharacters(in: .whitespaces).isEmpty {
            predicateFormat = format
        }
        if let sort = parameters["sort"] {
            self.sort = try sort.split(separator: ",", omittingEmptySubsequences: false).map { field throws(HTTPError) in
                let field = field.trimmingCharacters(in: .whitespaces)
                let descending = field.hasPrefix("-")
                let key = descending ? String(field.dropFirst()) : field
                guard !key.isEmpty else { throw HTTPError(.badRequest, message: "sort: an empty key in '\(sort)'") }
                return SortKey(key: key, ascending: !descending)
            }
        }
        if let limit = parameters["limit"] {
            guard let value = Int(limit), (1...Self.maximumLimit).contains(value) else {
                throw HTTPError(.badRequest, message: "limit must be a number from 1 to \(Self.maximumLimit), not '\(limit)'")
            }
            self.limit = value
        }
        if let offset = parameters["offset"] {
            guard let value = Int(offset), value >= 0 else {
                throw HTTPError(.badRequest, message: "offset must be a number from 0, not '\(offset)'")
            }
            self.offset = value
        }
    }
}
