import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Streaming over two stores: without sort descriptors one store after the other (the offset
/// and limit over the whole stream); with them, refused unless `affectedStores` names one.
@Suite struct StreamingMultiStoreTests {
    @Test(arguments: ContextFixture.storeTypes)
    func storesComeOneAfterTheOther(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let (context, first, second) = try MultiStoreTests().setUp(storeType, in: folder)
        func names(_ configure: (NSFetchRequest<NSManagedObject>) -> Void) throws -> [String] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            configure(request)
            return try context.objects(for: request, batchSize: 2).map { $0.value(forKey: "name") as? String ?? "?" }
        }
        // Ann, Cy and Eve were assigned to the first store; Bob, Dee and Fay to the second.
        #expect(try names { _ in } == ["Ann", "Cy", "Eve", "Bob", "Dee", "Fay"])
        #expect(
            try names {
                $0.fetchOffset = 2
                $0.fetchLimit = 3
            } == ["Eve", "Bob", "Dee"])
        #expect(try names { $0.affectedStores = [second] } == ["Bob", "Dee", "Fay"])
        #expect(
            try names {
                $0.affectedStores = [first]
                $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
            } == ["Eve", "Cy", "Ann"])
        let sorted = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        sorted.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let error = #expect(throws: NSError.self) { try context.objects(for: sorted) }
        #expect(error?.localizedDescription.contains("2 stores") == true)
    }
}
