import CoreData

/// The demo's rows: 8 departments and 3,000 employees (120 of them managers), the same on every
/// run (a seeded generator), with accented names so that `[cd]` matching has work to do.
struct DemoData {
    static let departmentNames = [
        "Research", "Sales", "Support", "Engineering", "Marketing", "Finance", "Légal", "Opérations",
    ]
    static let firstNames = [
        "Ada", "Zoë", "José", "Renée", "Chloé", "Søren", "François", "Björn", "Ingrid", "Noël", "Amélie", "Ünal",
        "Łukasz", "Jürgen", "Ana", "Liam", "Mia", "Chen", "Priya", "Kwame", "Olga", "Hiro", "Emma", "Mateo",
        "Aisha", "Tomás", "Elif", "Niamh", "Rafael", "Yuki",
    ]
    static let lastNames = [
        "Jones", "Núñez", "Müller", "Ångström", "Øberg", "Jürgens", "Dvořák", "Crèpes", "García", "Lefèvre", "Smith",
        "Okafor", "Kowalski", "Nakamura", "Rossi", "Novák", "Brontë", "Sørensen", "Ibáñez", "Walsh", "Patel", "Kim",
        "Schäfer", "Moreau", "Costa",
    ]
    static let employeeCount = 3_000
    static let managersPerDepartment = 15

    /// SplitMix64: a small generator whose sequence depends only on its seed.
    private struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Inserts the rows into `context`, saving every 500 employees and reporting progress.
    static func fill(_ context: NSManagedObjectContext, progress: (Int, Int) -> Void) throws {
        var generator = Generator(state: 2024)
        var departments: [NSManagedObject] = []
        for (index, name) in departmentNames.enumerated() {
            let department = NSEntityDescription.insertNewObject(forEntityName: "Department", into: context)
            department.setValue(name, forKey: "name")
            department.setValue(Decimal(1_000_000 + 250_000 * index), forKey: "budget")
            departments.append(department)
        }
        var managers: [[NSManagedObject]] = Array(repeating: [], count: departments.count)
        let start = Date(timeIntervalSinceReferenceDate: 283_996_800)  // 2010-01-01T00:00:00Z
        for number in 0..<employeeCount {
            let slot = number % departments.count
            let isManager = number < departments.count * managersPerDepartment
            let employee = NSEntityDescription.insertNewObject(forEntityName: isManager ? "Manager" : "Employee", into: context)
            let first = firstNames[generator.next(below: firstNames.count)]
            let last = lastNames[generator.next(below: lastNames.count)]
            employee.setValue(first, forKey: "firstName")
            employee.setValue(last, forKey: "lastName")
            employee.setValue("\(ascii(first)).\(ascii(last))\(number)@example.com".lowercased(), forKey: "email")
            let base = 40_000 + 1_000 * generator.next(below: 140)
            employee.setValue(Int64(isManager ? base + 60_000 : base), forKey: "salary")
            employee.setValue(start.addingTimeInterval(Double(generator.next(below: 15 * 365)) * 86_400), forKey: "hireDate")
            employee.setValue(generator.next(below: 3) == 0, forKey: "isRemote")
            if number % 10 == 0 {
                employee.setValue(Data((0..<48).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ number) }), forKey: "badge")
            }
            employee.setValue(departments[slot], forKey: "department")
            if isManager {
                employee.setValue(Int16(managers[slot].isEmpty ? 3 : 1 + generator.next(below: 2)), forKey: "level")
                // The first manager of a department heads it; the others report to them.
                if let head = managers[slot].first { employee.setValue(head, forKey: "manager") }
                managers[slot].append(employee)
            } else {
                let team = managers[slot]
                employee.setValue(team[1 + generator.next(below: team.count - 1)], forKey: "manager")
            }
            if (number + 1) % 500 == 0 {
                try context.save()
                progress(number + 1, employeeCount)
            }
        }
        try context.save()
    }

    /// The name with its accents removed, for e-mail addresses.
    private static func ascii(_ name: String) -> String {
        name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
            .replacingOccurrences(of: "ø", with: "o").replacingOccurrences(of: "ł", with: "l")
    }
}
