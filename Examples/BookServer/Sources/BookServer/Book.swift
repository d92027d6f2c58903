import CoreData
import Foundation

// The Book entity of Books.xcdatamodeld as Xcode's "Manual/None" code generation writes it, with
// the mechanical edits of porting (`@NSManaged` → `@Managed`, no `@objc(Book)`). An object of a
// context: it never leaves the closure given to `perform`; `BookDTO` carries its values out.

/// A book: an object of the `Book` entity.
final class Book: NSManagedObject {
    @nonobjc class func fetchRequest() -> NSFetchRequest<Book> {
        NSFetchRequest<Book>(entityName: "Book")
    }

    @Managed var id: UUID
    @Managed var title: String
    @Managed var author: String
    @Managed var year: Int32
    /// Out of 5; nil when nobody rated the book.
    @Managed var rating: NSNumber?
    @Managed var createdAt: Date

    /// A new book gets its identifier and creation date, once, when it is inserted.
    override func awakeFromInsert() {
        super.awakeFromInsert()
        id = UUID()
        createdAt = Date()
    }
}
