import CoreData
import Foundation

// Xcode's "Manual/None" code generation: the class in one file, its properties in an extension
// in `Journal+CoreDataProperties.swift`.

public class Journal: NSManagedObject {
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        createdAt = Date(timeIntervalSinceReferenceDate: 0)
    }
}
