import Foundation
import Testing

/// The guide (`Sources/OpenCoreData/OpenCoreData.docc/ServerApps.md` of the root package) shows
/// code of this example: each of its `swift` blocks but the Vapor one must appear, line for line,
/// in a source file of the `BookServer` target, so the guide and the example cannot drift apart.
/// (The root package's `ReadmeExamplesTests` lists these blocks as exempt: it cannot compile them.)
@Suite("The server guide")
struct DocumentationTests {
    static let exampleRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let packageRoot = exampleRoot.deletingLastPathComponent().deletingLastPathComponent()
    static let guide = packageRoot.appendingPathComponent("Sources/OpenCoreData/OpenCoreData.docc/ServerApps.md")

    /// The fenced blocks of `text` marked `language`, each as its lines.
    static func blocks(_ language: String, in text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        var currentLanguage = ""
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                if let open = current {
                    if currentLanguage == language { blocks.append(open) }
                    current = nil
                } else {
                    currentLanguage = String(line.dropFirst(3))
                    current = []
                }
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func swiftBlocksAreTheExamplesCode() throws {
        let guide = try String(contentsOf: Self.guide, encoding: .utf8)
        let blocks = Self.blocks("swift", in: guide).filter { !$0.contains("import Vapor") }
        #expect(!blocks.isEmpty)
        let sources = Self.exampleRoot.appendingPathComponent("Sources/BookServer")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        let sourceLines = try files.map {
            try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8).components(separatedBy: "\n")
        }
        for block in blocks {
            let first = try #require(block.first)
            let found = sourceLines.contains { lines in
                lines.indices.contains { start in
                    guard lines[start].hasSuffix(first), start + block.count <= lines.count else { return false }
                    let indent = String(lines[start].dropLast(first.count))
                    guard indent.allSatisfy({ $0 == " " }) else { return false }
                    return zip(block, lines[start...]).allSatisfy { shown, here in
                        shown.isEmpty ? here.isEmpty : here == indent + shown
                    }
                }
            }
            #expect(found, "ServerApps.md: the block starting \"\(first)\" is not in Sources/BookServer")
        }
    }

    /// The commands of the guide and of the README name this package and its executable.
    @Test func commandsNameThisPackage() throws {
        let manifest = try String(contentsOf: Self.exampleRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".executable(name: "book-server""#))
        for document in [Self.guide, Self.packageRoot.appendingPathComponent("README.md")] {
            let text = try String(contentsOf: document, encoding: .utf8)
            let commands = Self.blocks("sh", in: text).joined().filter { $0.contains("Examples/BookServer") }
            #expect(commands.contains { $0.hasPrefix("swift run --package-path Examples/BookServer book-server") })
            #expect(commands.contains { $0.hasPrefix("swift test --package-path Examples/BookServer") })
        }
        let ci = try String(contentsOf: Self.packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("swift test --package-path Examples/BookServer"))
    }
}
