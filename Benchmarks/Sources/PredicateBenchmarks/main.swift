// Prints figures for OpenPredicate: how fast format strings parse, and how fast a parsed
// predicate filters a million objects compared with hand-written Swift and with swift-foundation's
// #Predicate. Nothing here is a test; nothing fails on a slow machine.
//
//     cd Benchmarks && swift run -c release PredicateBenchmarks [results.json]
//
// The table goes to stdout; the last line of stdout is the same results as one JSON object, also
// written to the file named by the first argument, if any.

import Foundation
import OpenPredicate

// MARK: - Timing

let clock = ContinuousClock()
let runs = 5

extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}

/// The best (shortest) of `runs` timings of `body`, and the value it returned in the last run.
func best<T>(_ body: () -> T) -> (nanoseconds: Double, result: T) {
    var fastest = Double.infinity
    var result: T?
    for _ in 0..<runs {
        var value: T?
        let elapsed = clock.measure { value = body() }
        fastest = min(fastest, elapsed.nanoseconds)
        result = value
    }
    return (fastest, result!)
}

/// Keeps results alive so the optimizer cannot drop the work that made them.
@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

// MARK: - Helpers

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

var swiftVersion: String {
    #if compiler(>=6.3)
    "6.3+"
    #elseif compiler(>=6.2)
    "6.2"
    #elseif compiler(>=6.1)
    "6.1"
    #else
    "6.0"
    #endif
}

// MARK: - Parsing

let formats = [
    #"lastName LIKE[c] "Worsley""#,
    #"salary > 50000 AND lastName BEGINSWITH[c] "j""#,
    #"ANY tags.name IN {"a", "b"}"#,
    #"SUBQUERY(employees, $e, $e.salary > 10).@count > 0"#,
    #"department.name == "Sales" OR (age BETWEEN {30, 40} AND NOT name CONTAINS[cd] "x")"#,
    #"firstName == "Ada" AND lastName == "Lovelace""#,
    #"age >= 18 AND age < 65"#,
    #"email ENDSWITH[c] "@example.com" AND NOT (status IN {"closed", "archived"})"#,
    #"items.@sum.price > 100.5 AND items.@count <= 20"#,
    #"manager.name != nil AND salary * 1.1 + bonus <= 100000"#,
]

let parsesPerString = 20_000

print("OpenPredicate benchmarks — Swift \(swiftVersion), \(ProcessInfo.processInfo.activeProcessorCount) cores, best of \(runs) runs")
print("")
print("Parsing: NSPredicate(format:) — parse, build the predicate objects, compile the closure")
print("  ns/parse  format")
var parseRows: [[String: Any]] = []
var totalParseNanoseconds = 0.0
for format in formats {
    let (elapsed, _) = best { () -> Int in
        var count = 0
        for _ in 0..<parsesPerString {
            let predicate = NSPredicate(format: format)
            blackHole(predicate)
            count += 1
        }
        return count
    }
    let perParse = elapsed / Double(parsesPerString)
    totalParseNanoseconds += perParse
    parseRows.append(["format": format, "nsPerParse": perParse.rounded()])
    print("  \(pad(String(format: "%.0f", perParse), 8))  \(format)")
}
let parsesPerSecond = Double(formats.count) / (totalParseNanoseconds / 1e9)
print("  → \(String(format: "%.0f", parsesPerSecond)) parses/s over these \(formats.count) strings (mean \(String(format: "%.1f", totalParseNanoseconds / Double(formats.count) / 1000)) µs/parse)")
print("")

// MARK: - Evaluation

final class Employee: KeyValueCodable {
    let salary: Int
    let lastName: String

    init(salary: Int, lastName: String) {
        self.salary = salary
        self.lastName = lastName
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "salary": salary
        case "lastName": lastName
        default: nil
        }
    }
}

/// SplitMix64: the same "random" employees on every machine and every run.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// 3 of 16 names start with j/J (one of them non-ASCII after the J); salaries are uniform in
// 20_000..<85_000, so 35/65 are above 50_000: about 3/16 × 35/65 ≈ 10% match.
let lastNames = [
    "Smith", "Jones", "Williams", "Taylor", "Brown", "Davies", "Evans", "Wilson",
    "Thomas", "Johnson", "Roberts", "Walker", "Wright", "Jürgens", "Ångström", "Øberg",
]
let objectCount = 1_000_000
var generator = SplitMix64(state: 42)
let employees: [Employee] = (0..<objectCount).map { _ in
    let salary = 20_000 + Int(generator.next() % 65_000)
    let name = lastNames[Int(generator.next() % UInt64(lastNames.count))]
    return Employee(salary: salary, lastName: name)
}

let nsNumberPredicate = NSPredicate(format: "salary > %@ AND lastName BEGINSWITH[c] \"j\"", 50_000 as NSNumber)
let intPredicate = NSPredicate(format: "salary > %d AND lastName BEGINSWITH[c] \"j\"", 50_000)

let asciiJ = UInt8(ascii: "j"), asciiUpperJ = UInt8(ascii: "J")
/// Hand-written floor: no allocation, ASCII-only case fold of the first byte (correct for the
/// prefix "j", which no non-ASCII character folds to).
func asciiTest(_ employee: Employee) -> Bool {
    guard employee.salary > 50_000, let first = employee.lastName.utf8.first else { return false }
    return first == asciiJ || first == asciiUpperJ
}

// #Predicate on Linux has no case-insensitive string operator, and the macro rejects
// `lowercased()` ("The lowercased() function is not supported in this predicate"), so the
// case-insensitive prefix is spelt as two `starts(with:)` tests.
let foundationPredicate = #Predicate<Employee> {
    $0.salary > 50_000 && ($0.lastName.starts(with: "j") || $0.lastName.starts(with: "J"))
}

struct Variant {
    let name: String
    let key: String
    let run: () -> Int
}

let variants: [Variant] = [
    Variant(name: #"NSPredicate, %@ NSNumber — employees.filtered(using:)"#, key: "openPredicateNSNumber") {
        employees.filtered(using: nsNumberPredicate).count
    },
    Variant(name: #"NSPredicate, %d Int — employees.filtered(using:)"#, key: "openPredicateInt") {
        employees.filtered(using: intPredicate).count
    },
    Variant(name: #"closure: salary > 50_000 && lastName.lowercased().hasPrefix("j")"#, key: "closureLowercased") {
        employees.filter { $0.salary > 50_000 && $0.lastName.lowercased().hasPrefix("j") }.count
    },
    Variant(name: #"closure, ASCII fold of the first byte (no allocation)"#, key: "closureASCII") {
        employees.filter(asciiTest).count
    },
    Variant(name: #"#Predicate: starts(with: "j") || starts(with: "J")"#, key: "foundationPredicate") {
        employees.filter { (try? foundationPredicate.evaluate($0)) ?? false }.count
    },
]

print("Evaluation: \"salary > 50000 AND lastName BEGINSWITH[c] \\\"j\\\"\" over \(objectCount) KeyValueCodable objects")
var timings: [String: Double] = [:]
var counts: [String: Int] = [:]
for variant in variants {
    let (elapsed, count) = best(variant.run)
    timings[variant.key] = elapsed / Double(objectCount)
    counts[variant.key] = count
}

let closure = timings["closureLowercased"]!
let floor = timings["closureASCII"]!
print("  ns/object  × closure  × ASCII floor  matches  variant")
var evaluationRows: [[String: Any]] = []
for variant in variants {
    let nsPerObject = timings[variant.key]!
    let count = counts[variant.key]!
    print("  \(pad(String(format: "%.1f", nsPerObject), 9))  \(pad(String(format: "%.2f", nsPerObject / closure), 9))  \(pad(String(format: "%.2f", nsPerObject / floor), 12))  \(pad("\(count)", 7))  \(variant.name)")
    evaluationRows.append([
        "variant": variant.key, "description": variant.name,
        "nsPerObject": (nsPerObject * 10).rounded() / 10,
        "ratioToClosure": (nsPerObject / closure * 100).rounded() / 100,
        "ratioToASCIIFloor": (nsPerObject / floor * 100).rounded() / 100,
        "matches": count,
    ])
}
let allCounts = Set(counts.values)
let sameCount = allCounts.count == 1
print(sameCount
      ? "  all variants agree: \(counts["closureLowercased"]!) matches (\(String(format: "%.1f", Double(counts["closureLowercased"]!) / Double(objectCount) * 100))%)"
      : "  MISMATCH: the variants disagree on the match count: \(counts)")
print("  ours / closure: \(String(format: "%.2f", timings["openPredicateNSNumber"]! / closure)) (%@), \(String(format: "%.2f", timings["openPredicateInt"]! / closure)) (%d);  #Predicate / closure: \(String(format: "%.2f", timings["foundationPredicate"]! / closure))")

// MARK: - JSON

let results: [String: Any] = [
    "swift": swiftVersion,
    "cores": ProcessInfo.processInfo.activeProcessorCount,
    "runs": runs,
    "parsing": [
        "parsesPerString": parsesPerString,
        "parsesPerSecond": parsesPerSecond.rounded(),
        "formats": parseRows,
    ] as [String: Any],
    "evaluation": [
        "objects": objectCount,
        "sameMatchCount": sameCount,
        "variants": evaluationRows,
    ] as [String: Any],
]
let json = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys])
if CommandLine.arguments.count > 1 {
    try json.write(to: URL(fileURLWithPath: CommandLine.arguments[1]))
}
print(String(decoding: json, as: UTF8.self))
if !sameCount { exit(1) }
