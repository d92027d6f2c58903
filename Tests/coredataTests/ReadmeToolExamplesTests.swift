import CoreData
import Foundation
import Testing

/// The commands of the article "The command-line tool" (`CommandLineTool.md` in the OpenCoreData
/// DocC catalog), run on the demo's store with a 100-column terminal; each output is compared with
/// the literal here, and the article must show that same text.
@Suite struct ReadmeToolExamplesTests {
    @Test func readmeExamples() throws {
        let articleURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/OpenCoreData/OpenCoreData.docc/CommandLineTool.md")
        let readme = try String(contentsOf: articleURL, encoding: .utf8)
        let folder = try ToolRunner.temporaryFolder("company")
        #expect(try ToolRunner.run(["demo", "--folder", folder.path]).status == 0)
        let files = [
            "--model", folder.appendingPathComponent("Company.xcdatamodel").path,
            "--store", folder.appendingPathComponent("Company.sqlite").path,
        ]
        let employees = try ToolRunner.run(
            ["fetch"] + files + [
                "--entity", "Employee", "--predicate", "lastName BEGINSWITH[cd] 'mull' AND department.name == 'Research'",
                "--sort=-salary", "--limit", "3", "--properties", "firstName,lastName,salary,hireDate,manager",
            ], columns: 100)
        #expect(
            employees.stdout == """
                objectID        entity    firstName  lastName  salary  hireDate              manager
                ──────────────  ────────  ─────────  ────────  ──────  ────────────────────  ────────────
                Employee/p1849  Employee  Ünal       Müller    176000  2010-03-31T00:00:00Z  Manager/p73
                Employee/p2801  Employee  Rafael     Müller    150000  2018-04-23T00:00:00Z  Manager/p105
                Employee/p2657  Employee  Kwame      Müller    116000  2018-02-05T00:00:00Z  Manager/p49
                (3 rows)

                """)
        let groups = try ToolRunner.run(
            ["fetch"] + files + [
                "--entity", "Employee", "--properties", "department.name,people=count:(salary),top=max:(salary)",
                "--group-by", "department.name", "--having", "top > 235000", "--sort", "department.name", "--format", "json",
            ], columns: 100)
        #expect(
            groups.stdout == """
                [
                  {"department.name": "Engineering", "people": 375, "top": 237000},
                  {"department.name": "Légal", "people": 375, "top": 238000},
                  {"department.name": "Support", "people": 375, "top": 239000}
                ]

                """)
        let count = try ToolRunner.run(["count"] + files + ["--template", "EarnsMoreThan", "--var", "MINIMUM=198000"])
        #expect(count.stdout == "38\n")
        for output in [employees.stdout, groups.stdout] {
            #expect(readme.contains("```\n" + output + "```"), "CommandLineTool.md does not show:\n\(output)")
        }
        let explain = try ToolRunner.run(
            ["explain"] + files + ["--entity", "Department", "--predicate", "ANY employees.salary > 230000"], columns: 100)
        #expect(
            readme.contains("```\n" + explain.stdout + "```") && explain.stdout == """
                Department where ANY employees.salary > 230000 (objects)
                SQL:
                  SELECT t0.Z_PK, 1, t0.Z_OPT, t0.ZNAME, t0.ZBUDGET FROM ZDEPARTMENT t0 WHERE EXISTS (SELECT 1 FROM ZEMPLOYEE m1 WHERE m1.ZDEPARTMENT = t0.Z_PK AND m1.ZSALARY > ?) ORDER BY t0.Z_PK
                Bound values:
                  1. 230000 (integer)
                Query plan (EXPLAIN QUERY PLAN):
                  SCAN t0
                  CORRELATED SCALAR SUBQUERY 1
                    SEARCH m1 USING INDEX ZEMPLOYEE_ZDEPARTMENT_INDEX (ZDEPARTMENT=?)

                """)
        let badPredicate = try ToolRunner.run(["fetch"] + files + ["--entity", "Employee", "--predicate", "salary >"])
        #expect(badPredicate.status == 3)
        #expect(
            badPredicate.stderr
                == "coredata: error: --predicate: Unable to parse the format string \"salary >\" at line 1, column 9: unexpected end of format string, expected an expression\n"
        )
        let badEntity = try ToolRunner.run(["fetch"] + files + ["--entity", "Employe"])
        #expect(badEntity.status == 3)
        #expect(
            badEntity.stderr == "coredata: error: the model has no entity named 'Employe' (entities: Department, Employee, Manager)\n")
    }
}
