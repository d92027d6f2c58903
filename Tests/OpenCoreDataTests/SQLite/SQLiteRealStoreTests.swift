import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Apple-written stores from `../shared/realworld/stores`, opened read-only through the
/// coordinator (copied to a temporary folder first; the shared folder is never touched).
/// Expectations come from the files' inventory in that folder's README.
@Suite struct SQLiteRealStoreTests {
    /// The SampleModel v1 store copied into `folder`, or nil (with a message) without the shared folder.
    static func sampleModelV1(in folder: TemporaryFolder) throws -> (model: NSManagedObjectModel, url: URL)? {
        guard let source = RealWorld.url("stores/coredataplus-samplemodel-v1"),
            FileManager.default.fileExists(atPath: source.path)
        else {
            print("SQLiteRealStoreTests: ../shared/realworld/stores is absent; skipping the real-store checks")
            return nil
        }
        let model = try NSManagedObjectModel(
            validatingContentsOf: source.appendingPathComponent("SampleModel.xcdatamodel.contents.xml"))
        let url = folder.url.appendingPathComponent("SampleModel_V1.sqlite")
        try FileManager.default.copyItem(at: source.appendingPathComponent("SampleModel_V1.sqlite"), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return (model, url)
    }

    @Test func sampleModelV1AnswersFromTheFile() throws {
        let folder = try TemporaryFolder()
        guard let (model, url) = try SQLiteRealStoreTests.sampleModelV1(in: folder) else { return }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(store.identifier == "753753D3-A961-4901-AB05-8CC48B1D3853")
        #expect(store.isReadOnly)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator

        func count(_ entity: String, _ format: String? = nil, subentities: Bool = true) throws -> Int {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = format.map { NSPredicate(format: $0) }
            request.includesSubentities = subentities
            return try context.count(for: request)
        }
        // Z_ENT in ZCAR: 115 Car, 5 SportCar, 5 ExpensiveSportCar.
        #expect(try count("Car") == 125)
        #expect(try count("Car", subentities: false) == 115)
        #expect(try count("SportCar") == 10)
        #expect(try count("SportCar", subentities: false) == 5)
        #expect(try count("ExpensiveSportCar") == 5)
        #expect(try count("Person") == 20)
        #expect(try count("Car", "maker == 'FIAT'") == 103)
        #expect(try count("Car", "maker IN {'BMW', 'Kia'}") == 6)
        #expect(try count("Car", "owner != nil") == 118)
        // Person.cars (inverse Car.owner, cars of three entities in ZCAR): per owner, from
        // `SELECT ZOWNER, COUNT(*), SUM(ZMAKER = 'BMW'), SUM(ZMAKER IS NOT 'FIAT'), SUM(Z_ENT IN (2, 3))
        // FROM ZCAR GROUP BY ZOWNER`: 13 owners of 20 people, one with 100 cars, BMWs with 9 and 13,
        // only FIATs with 2, 8 and 17, sport cars with 9, 11, 13, 15 and 18, two or more other
        // makers with 11, 13, 16 and 20; seven owners of one car (2, 8, 10, 12, 14, 15, 18), each with a plate.
        #expect(try count("Person", "cars.@count > 5") == 1)
        #expect(try count("Person", "cars.@count == 0") == 7)
        #expect(try count("Person", "ANY cars.maker == 'BMW'") == 2)
        #expect(try count("Person", "ALL cars.maker == 'FIAT'") == 10)
        #expect(try count("Person", "NONE cars.maker != 'FIAT'") == 10)
        #expect(try count("Person", "SUBQUERY(cars, $c, $c.maker != 'FIAT').@count >= 2") == 4)
        #expect(try count("Person", "ANY cars.numberPlate != nil AND cars.@count < 2") == 7)

        let plate = NSFetchRequest<NSManagedObject>(entityName: "Car")
        plate.predicate = NSPredicate(format: "numberPlate == '170'")
        let car = try #require(try context.fetch(plate).first)
        #expect(car.value(forKey: "maker") as? String == "FIAT" && car.value(forKey: "model") as? String == "Panda")
        let owner = try #require(car.value(forKey: "owner") as? NSManagedObject)
        #expect(owner.entity.name == "Person")
        #expect(((owner.value(forKey: "cars") as? Set<NSManagedObject>)?.count ?? 0) > 0)

        let first = NSFetchRequest<NSManagedObject>(entityName: "Person")
        first.sortDescriptors = [NSSortDescriptor(key: "firstName", ascending: true)]
        first.fetchLimit = 3
        #expect(try context.fetch(first).count == 3)

        car.setValue("Punto", forKey: "model")
        #expect(throws: (any Error).self) { try context.save() }
    }
}
