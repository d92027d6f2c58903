import CoreData

// `coredata demo`: until the command-line tool arrives (a later issue), a short tour of the
// predicate language on plain dictionaries, the way Core Data code filters and sorts in memory.

let arguments = CommandLine.arguments.dropFirst()
guard arguments.first == "demo" || arguments.isEmpty else {
    print("usage: coredata demo")
    exit(2)
}

let employees: [[String: Any]] = [
    ["firstName": "Ada", "lastName": "Jones", "salary": 72_000, "department": ["name": "Research"], "tags": ["lead", "remote"]],
    ["firstName": "Bo", "lastName": "Crèpes", "salary": 41_000, "department": ["name": "Sales"], "tags": ["remote"]],
    ["firstName": "Chen", "lastName": "jackson", "salary": 58_500, "department": ["name": "Sales"], "tags": []],
    ["firstName": "Dara", "lastName": "Worsley", "salary": 99_000, "department": ["name": "Research"], "tags": ["lead"]],
    ["firstName": "Eli", "lastName": "Ito", "salary": 35_250, "department": ["name": "Support"], "tags": ["remote", "new"]],
]

func names(_ rows: [[String: Any]]) -> String {
    rows.map { "\($0["firstName"] ?? "?")" }.joined(separator: ", ")
}

let tour: [(String, [Any])] = [
    ("salary > %d AND lastName BEGINSWITH[c] %@", [50_000, "j"]),
    ("lastName BEGINSWITH[cd] 'crepes'", []),
    ("ANY tags IN {'lead', 'new'}", []),
    ("department.name == 'Sales' OR salary BETWEEN {90000, 100000}", []),
    ("tags.@count >= 2", []),
    ("SUBQUERY(tags, $t, $t == 'remote').@count > 0 AND NOT lastName MATCHES '[A-C].*'", []),
    ("lastName LIKE[c] 'w*y'", []),
]

print("Predicates over \(employees.count) employees (\(names(employees))):\n")
for (format, args) in tour {
    do {
        let predicate = try NSPredicate(validatingFormat: format, argumentArray: args)
        let matches = employees.filtered(using: predicate)
        print("  \(predicate.description)")
        print("    → \(matches.isEmpty ? "(none)" : names(matches))")
    } catch {
        print("  \(format)\n    ✗ \(error.localizedDescription)")
    }
}

let byDepartmentThenSalary = [
    NSSortDescriptor(key: "department.name", ascending: true),
    NSSortDescriptor(key: "salary", ascending: false),
]
print("\nSorted by department.name, then salary descending:")
print("  \(names(employees.sorted(using: byDepartmentThenSalary)))")

let total = NSExpression(format: "sum:(%@)", employees.compactMap { $0["salary"] })
print("\nNSExpression sum:(salaries) = \(total.expressionValue(with: nil, context: nil) ?? "nil")")

print("\nA malformed format string gives an error, not a crash:")
do {
    _ = try NSPredicate(validatingFormat: "salary > AND name == 'x'")
} catch {
    print("  \(error.localizedDescription)")
}
