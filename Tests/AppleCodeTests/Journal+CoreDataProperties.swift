import CoreData
import Foundation

extension Journal {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Journal> {
        NSFetchRequest<Journal>(entityName: "Journal")
    }

    @Managed public var createdAt: Date?
    @Managed public var text: String?
    @Managed public var updatedAt: Date?
    @Managed("text") public var body: String?
}
