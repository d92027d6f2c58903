// Prints figures for OpenPredicate: how fast format strings parse, and how fast a parsed
// predicate filters a million objects compared with hand-written Swift and with swift-foundation's
// #Predicate. Nothing here is a test; nothing fails on a slow machine.
//
//     cd Benchmarks && swift run -c release PredicateBenchmarks [results.json]
//
// The table goes to stdout; the last line of stdout is the same results as one JSON object, also
// written to the file named by the first argument, if any.

import BenchmarkSupport
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

/// `ONLY=<substring>`: run only the dictionary and object lines whose format contains it; the
/// parsing and employee sections shrink to a token run.
let only = ProcessInfo.processInfo.environment["ONLY"]
let parsesPerString = only == nil ? 20_000 : 10

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

// 3 of 16 names start with j/J (one of them non-ASCII after the J); salaries are uniform in
// 20_000..<85_000, so 35/65 are above 50_000: about 3/16 × 35/65 ≈ 10% match.
let lastNames = [
    "Smith", "Jones", "Williams", "Taylor", "Brown", "Davies", "Evans", "Wilson",
    "Thomas", "Johnson", "Roberts", "Walker", "Wright", "Jürgens", "Ångström", "Øberg",
]
let objectCount = only == nil ? 1_000_000 : 1_000
var generator = SplitMix64(seed: 42)
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

// MARK: - Dictionaries

// `evaluate(with:)` and `filtered(using:)` on `[String: Any]` dictionaries (the idiom of
// filtering decoded JSON or plist rows), against the closure a Swift programmer writes for the
// same test on the same dictionaries (`d["age"] as? Int`, `as? String`, …). Goal: ≤ 3× the
// closure. Two data sets: Swift values (Int, Double, String, Date, Bool), and the same rows
// round-tripped through JSONSerialization (NSNumber and whatever strings it gives).
//
// DICTS=<n> dictionaries (default 200000); ONLY=<substring> (see above).

/// The same fields as a `KeyValueCodable` class, to see what the engine adds over the reads.
final class Person: KeyValueCodable {
    let name: String
    let city: String
    let age: Int
    let score: Double
    let joined: Date
    let active: Bool

    init(name: String, city: String, age: Int, score: Double, joined: Date, active: Bool) {
        self.name = name
        self.city = city
        self.age = age
        self.score = score
        self.joined = joined
        self.active = active
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "city": city
        case "age": age
        case "score": score
        case "joined": joined
        case "active": active
        default: nil
        }
    }
}

let dictionaryCount = ProcessInfo.processInfo.environment["DICTS"].flatMap { Int($0) } ?? 200_000
let personNames = [
    "Alice", "Andrew", "Bob", "Brian", "Charlotte", "Daniel", "Hannah", "Ian",
    "Joanna", "Anne-Marie", "Zoë", "Ángel", "Stan", "Evan", "Amir", "Grace",
]
let cities = ["Leeds", "York", "London", "Bristol", "Manchester", "Hull"]
let joinedCutoff = Date(timeIntervalSinceReferenceDate: 500_000_000)
var personGenerator = SplitMix64(seed: 7)
let people: [Person] = (0..<dictionaryCount).map { _ in
    Person(
        name: personNames[Int(personGenerator.next() % UInt64(personNames.count))],
        city: cities[Int(personGenerator.next() % UInt64(cities.count))],
        age: 18 + Int(personGenerator.next() % 52),
        score: Double(personGenerator.next() % 10_000) / 100,
        joined: Date(timeIntervalSinceReferenceDate: Double(personGenerator.next() % 800_000_000)),
        active: personGenerator.next() % 2 == 0)
}
let swiftRows: [[String: Any]] = people.map {
    ["name": $0.name, "city": $0.city, "age": $0.age, "score": $0.score, "joined": $0.joined, "active": $0.active]
}
let jsonRows: [[String: Any]] = {
    let plain = people.map { person -> [String: Any] in
        ["name": person.name, "city": person.city, "age": person.age, "score": person.score, "active": person.active]
    }
    guard let data = try? JSONSerialization.data(withJSONObject: plain),
        let decoded = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
    else { return [] }
    return decoded
}()

struct DictionaryCase {
    let format: String
    let arguments: [Any]
    /// What a Swift programmer writes for the same test on a dictionary.
    let closure: ([String: Any]) -> Bool
    /// The same test through `value(forKey:)`: the reads the engine cannot avoid.
    let kvcClosure: (Person) -> Bool
    /// The same test on the properties.
    let propertyClosure: (Person) -> Bool
    /// Whether the JSON rows have the fields (dates do not survive JSON).
    var json = true
}

let dictionaryCases: [DictionaryCase] = [
    DictionaryCase(
        format: "age > 30", arguments: [],
        closure: { ($0["age"] as? Int).map { $0 > 30 } ?? false },
        kvcClosure: { ($0.value(forKey: "age") as? Int).map { $0 > 30 } ?? false },
        propertyClosure: { $0.age > 30 }),
    DictionaryCase(
        format: #"city == "Leeds" AND age > 30"#, arguments: [],
        closure: { $0["city"] as? String == "Leeds" && ($0["age"] as? Int).map { $0 > 30 } ?? false },
        kvcClosure: {
            $0.value(forKey: "city") as? String == "Leeds" && ($0.value(forKey: "age") as? Int).map { $0 > 30 } ?? false
        },
        propertyClosure: { $0.city == "Leeds" && $0.age > 30 }),
    DictionaryCase(
        format: #"name BEGINSWITH "A""#, arguments: [],
        closure: { ($0["name"] as? String)?.hasPrefix("A") ?? false },
        kvcClosure: { ($0.value(forKey: "name") as? String)?.hasPrefix("A") ?? false },
        propertyClosure: { $0.name.hasPrefix("A") }),
    DictionaryCase(
        format: #"name CONTAINS[c] "an""#, arguments: [],
        closure: { ($0["name"] as? String)?.lowercased().contains("an") ?? false },
        kvcClosure: { ($0.value(forKey: "name") as? String)?.lowercased().contains("an") ?? false },
        propertyClosure: { $0.name.lowercased().contains("an") }),
    DictionaryCase(
        format: "age BETWEEN {20, 40}", arguments: [],
        closure: { ($0["age"] as? Int).map { (20...40).contains($0) } ?? false },
        kvcClosure: { ($0.value(forKey: "age") as? Int).map { (20...40).contains($0) } ?? false },
        propertyClosure: { (20...40).contains($0.age) }),
    DictionaryCase(
        format: #"city IN {"Leeds", "York"}"#, arguments: [],
        closure: { ($0["city"] as? String).map { ["Leeds", "York"].contains($0) } ?? false },
        kvcClosure: { ($0.value(forKey: "city") as? String).map { ["Leeds", "York"].contains($0) } ?? false },
        propertyClosure: { ["Leeds", "York"].contains($0.city) }),
    DictionaryCase(
        format: "score >= 50.5", arguments: [],
        closure: { ($0["score"] as? Double).map { $0 >= 50.5 } ?? false },
        kvcClosure: { ($0.value(forKey: "score") as? Double).map { $0 >= 50.5 } ?? false },
        propertyClosure: { $0.score >= 50.5 }),
    DictionaryCase(
        format: "active == YES", arguments: [],
        closure: { $0["active"] as? Bool == true },
        kvcClosure: { $0.value(forKey: "active") as? Bool == true },
        propertyClosure: { $0.active }),
    DictionaryCase(
        format: "joined < %@", arguments: [joinedCutoff],
        closure: { ($0["joined"] as? Date).map { $0 < joinedCutoff } ?? false },
        kvcClosure: { ($0.value(forKey: "joined") as? Date).map { $0 < joinedCutoff } ?? false },
        propertyClosure: { $0.joined < joinedCutoff },
        json: false),
]

/// Best-of-runs ns per element of `body`, which returns a match count.
func nsPerElement(_ count: Int, _ body: () -> Int) -> (Double, Int) {
    let (elapsed, matches) = best(body)
    return (elapsed / Double(max(count, 1)), matches)
}

// The loops are functions of their own so that callgrind can count each one's
// instructions: `valgrind --tool=callgrind --toggle-collect='*evaluateLoop*' …` with
// `ONLY=<format> DATA=swift`, then Ir / (rows × 5 runs) is instructions per evaluation.
@inline(never) func closureLoop(_ closure: ([String: Any]) -> Bool, _ rows: [[String: Any]]) -> Int {
    var matches = 0
    for row in rows where closure(row) { matches += 1 }
    return matches
}

@inline(never) func evaluateLoop(_ predicate: Foundation.NSPredicate, _ rows: [[String: Any]]) -> Int {
    var matches = 0
    for row in rows where predicate.evaluate(with: row) { matches += 1 }
    return matches
}

@inline(never) func filteredLoop(_ predicate: Foundation.NSPredicate, _ rows: [[String: Any]]) -> Int {
    rows.filtered(using: predicate).count
}

@inline(never) func valueForKeyLoop(_ closure: (Person) -> Bool, _ people: [Person]) -> Int {
    var matches = 0
    for person in people where closure(person) { matches += 1 }
    return matches
}

@inline(never) func objectEvaluateLoop(_ predicate: Foundation.NSPredicate, _ people: [Person]) -> Int {
    var matches = 0
    for person in people where predicate.evaluate(with: person) { matches += 1 }
    return matches
}

/// `DATA=swift` or `DATA=json`: only that data set.
let dataSets = [("Swift values", "swift", swiftRows), ("JSON (NSNumber)", "json", jsonRows)].filter { dataSet in
    ProcessInfo.processInfo.environment["DATA"].map { $0 == dataSet.1 } ?? true
}
let dictionaryGoal = 3.0
var dictionaryRows: [[String: Any]] = []
var dictionaryMismatch = false
var worstDictionaryRatio = 0.0
let selectedCases = dictionaryCases.filter { only == nil || $0.format.contains(only ?? "") }
for (label, _, rows) in dataSets {
    print("")
    print("Dictionaries: \(rows.count) [String: Any] rows, \(label) — ns/row; goal: ≤ \(String(format: "%.0f", dictionaryGoal))× the closure")
    print("  closure  evaluate  × closure  filtered  × closure  matches  format")
    for testCase in selectedCases where testCase.json || label == "Swift values" {
        let predicate = NSPredicate(format: testCase.format, argumentArray: testCase.arguments)
        let closure = testCase.closure
        let (closureNs, closureCount) = nsPerElement(rows.count) { closureLoop(closure, rows) }
        let (evaluateNs, evaluateCount) = nsPerElement(rows.count) { evaluateLoop(predicate, rows) }
        let (filteredNs, filteredCount) = nsPerElement(rows.count) { filteredLoop(predicate, rows) }
        let agree = closureCount == evaluateCount && closureCount == filteredCount
        if !agree { dictionaryMismatch = true }
        worstDictionaryRatio = max(worstDictionaryRatio, evaluateNs / closureNs, filteredNs / closureNs)
        print("  \(pad(String(format: "%.1f", closureNs), 7))  \(pad(String(format: "%.1f", evaluateNs), 8))  \(pad(String(format: "%.2f", evaluateNs / closureNs), 9))  \(pad(String(format: "%.1f", filteredNs), 8))  \(pad(String(format: "%.2f", filteredNs / closureNs), 9))  \(pad("\(closureCount)", 7))  \(testCase.format)\(agree ? "" : "  MISMATCH \(closureCount)/\(evaluateCount)/\(filteredCount)")")
        dictionaryRows.append([
            "data": label, "format": testCase.format,
            "closureNsPerRow": (closureNs * 10).rounded() / 10,
            "evaluateNsPerRow": (evaluateNs * 10).rounded() / 10,
            "filteredNsPerRow": (filteredNs * 10).rounded() / 10,
            "evaluateRatio": (evaluateNs / closureNs * 100).rounded() / 100,
            "filteredRatio": (filteredNs / closureNs * 100).rounded() / 100,
            "matches": closureCount, "agree": agree,
        ])
    }
}
print("  worst ratio: \(String(format: "%.2f", worstDictionaryRatio))× (goal ≤ \(String(format: "%.0f", dictionaryGoal))×)\(dictionaryMismatch ? "  MISMATCH in match counts" : "")")

print("")
print("KeyValueCodable objects: \(people.count) objects — ns/object; the engine against the same test")
print("through value(forKey:) (the reads it cannot avoid) and on the properties")
print("  property  value(forKey:)  evaluate  engine − reads  matches  format")
var objectRows: [[String: Any]] = []
for testCase in selectedCases {
    let predicate = NSPredicate(format: testCase.format, argumentArray: testCase.arguments)
    let propertyClosure = testCase.propertyClosure
    let kvcClosure = testCase.kvcClosure
    let (propertyNs, propertyCount) = nsPerElement(people.count) {
        var matches = 0
        for person in people where propertyClosure(person) { matches += 1 }
        return matches
    }
    let (kvcNs, kvcCount) = nsPerElement(people.count) { valueForKeyLoop(kvcClosure, people) }
    let (evaluateNs, evaluateCount) = nsPerElement(people.count) { objectEvaluateLoop(predicate, people) }
    let agree = propertyCount == kvcCount && propertyCount == evaluateCount
    if !agree { dictionaryMismatch = true }
    print("  \(pad(String(format: "%.1f", propertyNs), 8))  \(pad(String(format: "%.1f", kvcNs), 14))  \(pad(String(format: "%.1f", evaluateNs), 8))  \(pad(String(format: "%.1f", evaluateNs - kvcNs), 14))  \(pad("\(propertyCount)", 7))  \(testCase.format)\(agree ? "" : "  MISMATCH")")
    objectRows.append([
        "format": testCase.format,
        "propertyNsPerObject": (propertyNs * 10).rounded() / 10,
        "valueForKeyNsPerObject": (kvcNs * 10).rounded() / 10,
        "evaluateNsPerObject": (evaluateNs * 10).rounded() / 10,
        "matches": propertyCount, "agree": agree,
    ])
}
print("")

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
    "dictionaries": [
        "rows": dictionaryCount,
        "goalRatio": dictionaryGoal,
        "worstRatio": (worstDictionaryRatio * 100).rounded() / 100,
        "cases": dictionaryRows,
    ] as [String: Any],
    "keyValueCodable": objectRows,
]
let json = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys])
if CommandLine.arguments.count > 1 {
    try json.write(to: URL(fileURLWithPath: CommandLine.arguments[1]))
}
print(String(decoding: json, as: UTF8.self))
if !sameCount || dictionaryMismatch { exit(1) }
