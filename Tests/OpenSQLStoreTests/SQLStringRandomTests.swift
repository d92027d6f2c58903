import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// String operators with every option, over strings made at random from pieces that break byte
/// comparisons — letters whose case folding lands in ASCII from outside it (the Kelvin sign,
/// long s, dotless i, İ), combining marks, CR, LF and CR LF, NUL, ß and ﬀ (which fold to two
/// letters), a prepended scalar — against needles cut from those strings with their case changed,
/// or made of the same pieces. SQL (native where `SQLCompiler+Strings.swift` finds it exact, the
/// registered function elsewhere) must answer as the in-memory engine does. The generator is
/// seeded: the same strings come on every run, and a failure names its predicate and needle.
@Suite struct SQLStringRandomTests {
    static let pieces: [String] = [
        "k", "K", "a", "A", "\u{212A}", "s", "S", "\u{17F}", "i", "I", "\u{130}", "\u{131}", "\u{301}", "\u{308}", "é", "e",
        "\r", "\n", "\r\n", "\u{0}", "ß", "ss", "ﬀ", "f", "l", "o", "O", " ", "\u{200D}", "\u{600}", "\u{1F0}", "j", "Ö",
    ]

    static func string(_ random: inout SplitMix64, pieces count: ClosedRange<Int>) -> String {
        (0..<Int.random(in: count, using: &random)).map { _ in
            pieces[Int.random(in: 0..<pieces.count, using: &random)]
        }.joined()
    }

    /// A needle: a run of a row's scalars (its head, its tail or its middle), upper- or
    /// lower-cased or left as it is; or pieces.
    static func needle(_ random: inout SplitMix64, rows: [String]) -> String {
        let row = Array(rows[Int.random(in: 0..<rows.count, using: &random)].unicodeScalars)
        guard !row.isEmpty, Int.random(in: 0..<4, using: &random) != 0 else { return string(&random, pieces: 1...3) }
        let length = Int.random(in: 1...min(row.count, 4), using: &random)
        let start: Int
        switch Int.random(in: 0..<3, using: &random) {
        case 0: start = 0
        case 1: start = row.count - length
        default: start = Int.random(in: 0...(row.count - length), using: &random)
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: row[start..<(start + length)])
        let text = String(view)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return text.uppercased()
        case 1: return text.lowercased()
        default: return text
        }
    }

    @Test func randomStringsAgree() throws {
        var random = SplitMix64(seed: 0x5EED_0016)
        let rows = (0..<150).map { _ in Self.string(&random, pieces: 0...5) }
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try SQLStringOperatorTests.stores(in: folder, names: rows + [nil])
        let operators = SQLStringOperatorTests.operators.filter { $0 != "!=" }
        var matched = 0
        for _ in 0..<40 {
            let constant = Self.needle(&random, rows: rows)
            for operatorName in operators {
                if operatorName == "==" && !SQLStringOperatorTests.bytesAreExact(constant) { continue }
                for option in SQLStringOperatorTests.options {
                    for shape in ["name %@ %%@", "NOT (name %@ %%@)"] {
                        let format = String(format: shape, operatorName + option)
                        let plan = SQLStringOperatorTests().plan(
                            SQLStringOperatorTests.member, NSPredicate(format: format, argumentArray: [constant]))
                        try expectSameAnswers(sqlite, memory, plan, label: "\(format) \(constant.debugDescription)")
                        if case .keys(let keys) = try memory.execute(plan), !keys.isEmpty { matched += 1 }
                    }
                }
            }
        }
        #expect(matched > 200)
    }
}
