import CoreData
import Testing

/// `coredata` on stores Apple's Core Data wrote (`../shared/realworld/stores`), copied first.
@Suite struct RealWorldStoreTests {
    @Test func surfJournalFetchWithPredicateAndSort() throws {
        guard let folder = try ToolRunner.realWorldStore("kodeco-surfjournal-wal") else { return }
        let files = [
            "--model", folder.appendingPathComponent("SurfJournalModel.xcdatamodel.contents.xml").path,
            "--store", folder.appendingPathComponent("SurfJournalModel.sqlite").path,
        ]
        let outcome = try ToolRunner.run(
            ["fetch"] + files + ["--entity", "JournalEntry", "--predicate", "rating >= 4", "--sort", "-date", "--limit", "3"])
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                objectID            date                         height  location  period  rating  wind
                ──────────────────  ───────────────────────────  ──────  ────────  ──────  ──────  ────
                JournalEntry/p2380  2014-08-29T13:20:09.04625Z   8.7     J-Bay     8            4  4.1
                JournalEntry/p989   2014-08-28T14:06:08.933236Z  8.0     C Street  6            4  7.7
                JournalEntry/p885   2014-08-26T09:06:09.314309Z  2.0     C Street  1            4  6.2
                (3 rows)

                """)
        let count = try ToolRunner.run(["count"] + files + ["--entity", "JournalEntry", "--predicate", "rating >= 4"])
        #expect(count.stdout == "1990\n")
        let groups = try ToolRunner.run(
            ["fetch"] + files + [
                "--entity", "JournalEntry", "--properties", "location,n=count:(rating)", "--group-by", "location",
                "--having", "n > 515", "--sort", "location", "--format", "csv",
            ])
        #expect(groups.stdout == "location,n\nC Street,546\nJ-Bay,519\n")
    }

    /// A store that caches its model opens without `--model`, with the same answers as with it;
    /// one that does not says so and asks for `--model`.
    @Test func storesOpenWithTheModelTheyCache() throws {
        guard let folder = try ToolRunner.realWorldStore("coredataplus-samplemodel-v1"),
            let old = try ToolRunner.realWorldStore("apple-recipes-2010")
        else { return }
        let store = ["--store", folder.appendingPathComponent("SampleModel_V1.sqlite").path]
        let model = ["--model", folder.appendingPathComponent("SampleModel.xcdatamodel.contents.xml").path]
        let request = [
            "--entity", "SportCar", "--predicate", "maker BEGINSWITH[c] 'l'", "--sort", "numberPlate", "--format", "csv",
        ]
        let cached = try ToolRunner.run(["fetch"] + store + request)
        let withModel = try ToolRunner.run(["fetch"] + store + model + request)
        #expect(cached.status == 0, "\(cached.stderr)")
        #expect(cached.stdout == withModel.stdout && cached.stdout.contains("Lamborghini"))
        #expect(try ToolRunner.run(["count"] + store + ["--entity", "Car"]).stdout == "125\n")
        #expect(try ToolRunner.run(["check"] + store).stdout == "ok\n")
        let described = try ToolRunner.run(["model"] + store)
        #expect(described.status == 0)
        #expect(described.stdout.hasPrefix("4 entities") && described.stdout.contains("SportCar : Car"))
        // Exported for Xcode, the cached model is the store's: its hashes match the metadata.
        let exported = try ToolRunner.temporaryFolder("exported").appendingPathComponent("Recovered.xcdatamodel")
        let export = try ToolRunner.run(["model"] + store + ["--export", exported.path])
        #expect(export.status == 0 && export.stdout == "wrote \(exported.path) (4 entities)\n", "\(export.stderr)")
        let compared = try ToolRunner.run(["stores"] + store + ["--model", exported.path, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(compared.stdout.utf8)) as? [String: Any]
        #expect(report?["matchesModel"] as? Bool == true, "\(compared.stdout)")
        let exportedFetch = try ToolRunner.run(["fetch"] + store + ["--model", exported.path] + request)
        #expect(exportedFetch.stdout == withModel.stdout)
        let recipes = try ToolRunner.run(
            ["count", "--store", old.appendingPathComponent("Recipes.sqlite").path, "--entity", "Recipe"])
        #expect(recipes.status == 3)
        #expect(recipes.stderr.contains("keeps no copy of its model") && recipes.stderr.contains("--model"))
    }

    /// Apple's 2010 Recipes store with the 2018 model beside the newer store: their version
    /// hashes differ (the store's model made its to-ones count at least 1, and differs in
    /// optionality), their tables do not, so it opens read-only with a warning.
    @Test func recipes2010OpensReadOnlyWithTheNewerModel() throws {
        guard let old = try ToolRunner.realWorldStore("apple-recipes-2010"),
            let new = try ToolRunner.realWorldStore("apple-recipes-2018")
        else { return }
        let files = [
            "--store", old.appendingPathComponent("Recipes.sqlite").path,
            "--model", new.appendingPathComponent("Recipes.xcdatamodel.contents.xml").path,
        ]
        let count = try ToolRunner.run(["count"] + files + ["--entity", "Recipe"])
        #expect(count.status == 0 && count.stdout == "7\n", "\(count.stderr)")
        #expect(count.stderr.contains("version hashes differ for Image, Ingredient, Recipe"))
        let names = try ToolRunner.run(
            ["fetch"] + files + ["--entity", "Ingredient", "--predicate", "recipe.name == 'Gaufres de Liège'", "--properties", "name",
            "--sort", "name", "--format", "csv", "--limit", "2"])
        #expect(names.status == 0 && names.stdout.hasPrefix("objectID,name\n"), "\(names.stderr)")
        #expect(names.stdout.split(separator: "\n").count == 3)
    }

    /// A store whose model file is not at hand migrates from the model it caches, and says what
    /// differs when asked to open without migrating.
    @Test func aStoreMigratesFromTheModelItCaches() throws {
        guard let folder = try ToolRunner.realWorldStore("wibosco-migration-posts") else { return }
        let files = [
            "--store", folder.appendingPathComponent("CoreDataMigration_Example_1.sqlite").path,
            "--model", folder.appendingPathComponent("v2.xcdatamodel.contents.xml").path, "--entity", "Post",
        ]
        let migrated = try ToolRunner.run(["count"] + files + ["--migrate"])
        #expect(migrated.status == 0 && migrated.stdout == "1001\n", "\(migrated.stderr)")
        #expect(migrated.stderr.contains("migrating Post: added attribute hexColor; removed attribute color"))
        let refused = try ToolRunner.run(["count"] + files)
        #expect(refused.status == 3 && refused.stderr.contains("written with another version of the model (Post: added"))
    }

    @Test func sampleModelSubentitiesAndToOneKeyPaths() throws {
        guard let folder = try ToolRunner.realWorldStore("coredataplus-samplemodel-v1") else { return }
        let files = [
            "--model", folder.appendingPathComponent("SampleModel.xcdatamodel.contents.xml").path,
            "--store", folder.appendingPathComponent("SampleModel_V1.sqlite").path,
        ]
        let outcome = try ToolRunner.run(
            ["fetch"] + files + [
                "--entity", "SportCar", "--predicate", "maker BEGINSWITH[c] 'l'", "--properties", "maker,numberPlate",
                "--sort", "numberPlate", "--format", "csv",
            ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let uri = "x-coredata://753753D3-A961-4901-AB05-8CC48B1D3853"
        #expect(
            outcome.stdout == """
                objectID,entity,maker,numberPlate
                \(uri)/SportCar/p123,SportCar,Lamborghini,204
                \(uri)/ExpensiveSportCar/p99,ExpensiveSportCar,Lamborghini,304

                """)
        let counts = try ToolRunner.run(["count"] + files + ["--entity", "Car"])
        #expect(counts.stdout == "125\n")
        let owners = try ToolRunner.run(["count"] + files + ["--entity", "Person", "--predicate", "cars.@count > 0"])
        #expect(owners.stdout == "13\n")
    }

    /// Reading an Apple store whose rows all live in its `-wal` leaves both files byte for byte.
    @Test func readOnlyRunsLeaveAnAppleWALStoreUnchanged() throws {
        guard let folder = try ToolRunner.realWorldStore("kodeco-surfjournal-wal") else { return }
        let store = folder.appendingPathComponent("SurfJournalModel.sqlite").path
        let files = [
            "--model", folder.appendingPathComponent("SurfJournalModel.xcdatamodel.contents.xml").path, "--store", store,
        ]
        let bytes = { try ["", "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: store + $0)) } }
        let before = try bytes()
        #expect(before[1].count == 222_512)
        for arguments in [
            ["fetch"] + files + ["--entity", "JournalEntry", "--predicate", "rating == 5", "--format", "json"],
            ["count"] + files + ["--entity", "JournalEntry"], ["explain"] + files + ["--entity", "JournalEntry"],
            ["stores", store],
        ] {
            _ = try ToolRunner.run(arguments)
            #expect(try bytes() == before, "\(arguments[0])")
        }
    }
}
