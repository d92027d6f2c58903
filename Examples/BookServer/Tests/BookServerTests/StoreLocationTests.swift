import Foundation
import Testing

@testable import BookServer

@Suite("Store locations")
struct StoreLocationTests {
    @Test(arguments: [
        ("postgres://app:secret@db.internal:5432/shop?schema=books", "postgres"),
        ("postgresql://db.internal/shop", "postgres"),
        ("books.sqlite", "sqlite"),
        ("/var/lib/books/books.sqlite", "sqlite"),
        ("file:///var/lib/books/books.sqlite", "sqlite"),
    ])
    func readsTheArgument(_ argument: String, _ kind: String) throws {
        let location = try StoreLocation(argument)
        switch location {
        case .sqlite(let url):
            #expect(kind == "sqlite")
            #expect(url.isFileURL)
            #expect(url.lastPathComponent == "books.sqlite")
        case .postgreSQL(let url):
            #expect(kind == "postgres")
            #expect(url.absoluteString == argument)
        }
    }

    @Test(arguments: ["", "mysql://db/books", "postgres://"])
    func refusesWhatIsNeither(_ argument: String) {
        #expect(throws: StoreLocation.Invalid.self) { try StoreLocation(argument) }
    }

    @Test func logsNoPassword() throws {
        let location = try StoreLocation("postgres://app:secret@db.internal/shop")
        #expect(!location.description.contains("secret"))
        #expect(location.description.contains("db.internal"))
    }

    @Test func defaultsToBooksSqliteInTheCurrentFolder() {
        #expect(StoreLocation.defaultFile.description.hasSuffix("/books.sqlite"))
    }
}
