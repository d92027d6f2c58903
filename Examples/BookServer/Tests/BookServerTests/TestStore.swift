import CoreData
import Foundation
import Testing

@testable import BookServer

/// The stores every route test runs on: an SQLite file in a temporary folder, and a schema of
/// its own on the PostgreSQL test server when `OPENCOREDATA_POSTGRES_URL` names one.
///
/// The root package's convention (Tests/TestSupport/PostgresTestServer.swift): without the
/// variable the PostgreSQL cases are left out and `postgreSQLServer` is skipped with a message
/// saying how to run them; with `CI` set they run anyway and fail for want of a server.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgreSQL

    var testDescription: String { rawValue }

    /// The kinds this run tests.
    static var tested: [StoreKind] { TestServer.isEnabled ? [.sqlite, .postgreSQL] : [.sqlite] }
}

/// The PostgreSQL test server: `.ci/postgres start` makes one and prints its URL.
enum TestServer {
    static let variable = "OPENCOREDATA_POSTGRES_URL"
    static let skipMessage: Comment =
        "set OPENCOREDATA_POSTGRES_URL=postgres://… to run the PostgreSQL cases; .ci/run starts a server"

    static var url: String? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return value
    }

    /// Whether this run is CI's (`CI` set to anything but empty, `0` or `false`).
    static var isCI: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() else { return false }
        return !value.isEmpty && value != "0" && value != "false"
    }

    /// Whether the PostgreSQL cases run: a server is named, or this is CI (and they fail without one).
    static var isEnabled: Bool { url != nil || isCI }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "CI is set but \(TestServer.variable) is not: the PostgreSQL cases need a server (.ci/run starts one with .ci/postgres start)"
        }
    }
}

/// A fresh, empty store for one test, removed by `remove()`.
struct TestStore: Sendable {
    let location: StoreLocation
    private let folder: URL?

    init(_ kind: StoreKind) throws {
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("book-server-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.folder = folder
            location = .sqlite(folder.appendingPathComponent("books.sqlite"))
        case .postgreSQL:
            // A schema of its own (`?schema=t_<random>`, made when the store is opened), so that
            // tests running at once never see each other's rows, as the root package's tests do.
            guard let server = TestServer.url else { throw TestServer.Missing() }
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            guard let url = URL(string: server + (server.contains("?") ? "&" : "?") + "schema=" + schema) else {
                throw TestServer.Missing()
            }
            folder = nil
            location = .postgreSQL(url)
        }
    }

    /// Deletes the file, or drops the schema (ignoring errors: it may not exist).
    func remove() {
        switch location {
        case .sqlite:
            if let folder { try? FileManager.default.removeItem(at: folder) }
        case .postgreSQL(let url):
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            try? coordinator.destroyPersistentStore(at: url, ofType: NSPostgreSQLStoreType)
        }
    }
}
