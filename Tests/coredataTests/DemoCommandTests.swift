import CoreData
import Testing

/// `swift run coredata demo`, the README's first command, run as a user runs it. The rows are
/// deterministic, so the tour's answers are fixed and asserted here.
@Suite struct DemoCommandTests {
    @Test func demoRunsTheTourWithItsAnswers() throws {
        let outcome = try ToolRunner.run(["demo"], columns: 100)
        #expect(outcome.status == 0)
        #expect(outcome.stderr.contains("Writing employees: 3000 of 3000"))
        let out = outcome.stdout
        #expect(out.contains("3000 employees in 8 departments saved to an NSSQLiteStoreType store"))
        // 1. predicate, sort, offset and limit
        #expect(out.contains("Employee where salary > 150000 AND isRemote == 1, sorted by -salary, lastName, offset 5, limit 5"))
        #expect(out.contains("   Chen       Jones     217000  Sales\n   Rafael     Ibáñez    214000  Marketing"))
        // 2. [cd]
        #expect(out.contains("   Zoë        Müller    zoe.muller1853@example.com  2013-06-01T00:00:00Z"))
        #expect(out.contains("matches 0)"))
        // 3. to-one key paths
        #expect(out.contains("   Ana        Núñez     Légal            Novák             Manager/p95"))
        // 4–6. to-many
        #expect(out.contains("   Yuki       Smith         2  Engineering      34 objects"))
        #expect(out.contains("   Sales        1250000\n   Support      1500000"))
        // 7. inheritance
        #expect(out.contains("   Employee  false                             2880"))
        #expect(out.contains("   Manager   true                 level == 3      8"))
        // 8. object IDs
        #expect(out.contains("   Manager/p83   x-coredata://"))
        // 9. dictionaries
        #expect(out.contains("   Finance             375  111882.6667  226000  2010-03-04T00:00:00Z"))
        // 10–13. count, template, fetched property, batching
        #expect(out.contains("Employee where hireDate >= CAST(599616000.000000, \"NSDate\") AND badge != nil\n   → 109"))
        #expect(out.contains("→ salary > 198000: 38 employees, the first 3:"))
        #expect(out.contains("Research has 3 high earners"))
        #expect(out.contains("   Mateo      Jones     212000"))
        #expect(out.contains("3000 employees returned, 3000 of them faults"))
        #expect(out.contains("Payroll of the first window: 23153000"))
        // 14. The SQL of a fetch: placeholders in the statement, the values bound beside it.
        let sql = try #require(out.split(separator: "\n").first { $0.hasPrefix("   SELECT t0.Z_PK") })
        #expect(
            sql.contains("lower(substr(CAST(t0.ZLASTNAME AS BLOB), 1, ?)) = ?")
                && sql.contains("ocd_begins_with(t0.ZLASTNAME, ?, 3)") && sql.contains("EXISTS (SELECT 1 FROM ZEMPLOYEE m1"))
        #expect(!sql.contains("mull") && !sql.contains("230000"))
        #expect(
            out.contains(
                "   bound: \"M\" (text), \"N\" (text), \"m\" (text), \"n\" (text), \"\u{80}\" (text), 4 (integer), \"mull\" (text), "
                    + "5 (integer), 1 bytes cc (blob), \"mull\" (text), \"mull\" (text), 230000 (integer), 3 (integer), 0 (integer)"
            ))
        #expect(out.contains("   Mateo      Müller    187000  Engineering"))
        // Every table fits the terminal.
        #expect(out.split(separator: "\n").filter { $0.contains("──") }.allSatisfy { $0.count <= 100 })
    }

    @Test func demoKeepsTheStoreInANamedFolder() throws {
        let folder = try ToolRunner.temporaryFolder("demo")
        let first = try ToolRunner.run(["demo", "--folder", folder.path])
        #expect(first.status == 0)
        let store = folder.appendingPathComponent("Company.sqlite").path
        #expect(FileManager.default.fileExists(atPath: store))
        // A second run replaces the store rather than adding 3,000 more rows.
        #expect(try ToolRunner.run(["demo", "--folder", folder.path]).status == 0)
        let stores = try ToolRunner.run(["stores", store])
        #expect(stores.status == 0)
        #expect(stores.stdout.contains("    1  Department                8     8"))
        #expect(stores.stdout.contains("    2  Employee               3000  2880"))
        #expect(stores.stdout.contains("    3  Manager     Employee      0   120"))
        // The demo also writes its model as an Xcode model file, with the store's version hashes.
        let model = folder.appendingPathComponent("Company.xcdatamodel").path
        let compared = try ToolRunner.run(["stores", store, "--model", model])
        #expect(compared.stdout.hasSuffix("The model matches the store: every version hash is the same.\n"))
        let managers = try ToolRunner.run([
            "fetch", "--model", model, "--store", store, "--entity", "Manager", "--sort=-salary,email", "--limit", "2",
            "--properties", "firstName,lastName,salary,department.name,reports",
        ])
        #expect(
            managers.stdout == """
                objectID      firstName  lastName  salary  department.name  reports
                ────────────  ─────────  ────────  ──────  ───────────────  ──────────
                Manager/p83   José       Nakamura  239000  Support          26 objects
                Manager/p119  Olga       Kowalski  238000  Légal            21 objects
                (2 rows)

                """)
        let template = try ToolRunner.run([
            "count", "--model", model, "--store", store, "--template", "EarnsMoreThan", "--var", "MINIMUM=198000",
        ])
        #expect(template.stdout == "38\n")
    }

    @Test func unknownCommandIsAUsageError() throws {
        let outcome = try ToolRunner.run(["nonsense"])
        #expect(outcome.status == 2)
        #expect(outcome.stderrLines.count == 1)
        #expect(outcome.stderr.hasPrefix("coredata: error: Unexpected argument 'nonsense'"))
        #expect(outcome.stdout.isEmpty)
    }

    /// `--version` prints the tool's version and the framework version its stores carry;
    /// the shell completion script ArgumentParser makes is there for each shell.
    @Test func versionAndCompletionScript() throws {
        let version = try ToolRunner.run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("0.") && version.stdout.contains("framework version 1344"))
        let completion = try ToolRunner.run(["--generate-completion-script", "bash"])
        #expect(completion.status == 0 && completion.stdout.contains("coredata") && completion.stdout.contains("fetch"))
    }

    /// A command that cannot open what it was given ends with status 3; `check`'s findings with 1.
    @Test func exitStatusesTellFindingsFromFailures() throws {
        let missing = try ToolRunner.run(["check", "--store", "/nonexistent/Store.sqlite"])
        #expect(missing.status == 3 && missing.stderr.hasPrefix("coredata: error: no store file at /nonexistent"))
    }

    @Test func missingArgumentsAreUsageErrors() throws {
        for (arguments, message) in [
            (["fetch", "--entity", "Book"], "Missing expected argument '--store <store>'"),
            (["stores"], "give the store once: --store S (or S alone)"),
            (["fetch", "--model", "m", "--store", "s", "--entity", "Book", "--colour"], "Unknown option '--colour'"),
        ] {
            let outcome = try ToolRunner.run(arguments)
            #expect(outcome.status == 2, "\(arguments)")
            #expect(outcome.stderr == "coredata: error: \(message)\n", "\(arguments)")
            #expect(outcome.stdout.isEmpty)
        }
    }

    @Test func helpListsTheCommands() throws {
        let outcome = try ToolRunner.run(["--help"])
        #expect(outcome.status == 0)
        for command in ["demo", "fetch", "count", "explain", "model", "stores"] {
            #expect(outcome.stdout.contains("  \(command) "), "\(command)")
        }
    }
}
