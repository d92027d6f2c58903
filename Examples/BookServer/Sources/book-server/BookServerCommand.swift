import ArgumentParser
import BookServer
import Foundation
import Logging

/// `book-server`: the book API on 127.0.0.1:8080, its store `books.sqlite` in the current folder
/// unless `--store` or `DATABASE_URL` names another.
@main
struct BookServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "book-server",
        abstract: "A JSON API over a Core Data model (OpenCoreData on Hummingbird).")

    @Option(name: .shortAndLong, help: "The address to listen on.")
    var hostname = "127.0.0.1"

    @Option(name: .shortAndLong, help: "The port to listen on.")
    var port = 8080

    @Option(
        help: ArgumentHelp(
            "An SQLite file, or a postgres:// URL (default: $DATABASE_URL, else books.sqlite in the current folder).",
            valueName: "path-or-url"))
    var store: String?

    @Option(help: "The log level (trace, debug, info, notice, warning, error, critical).")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let argument = store ?? ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let location: StoreLocation
        do {
            location = try argument.map(StoreLocation.init) ?? .defaultFile
        } catch {
            throw ValidationError("\(error)")
        }
        let app = try await buildApplication(
            AppConfiguration(hostname: hostname, port: port, store: location, logLevel: logLevel))
        try await app.runService()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
