import CoreData
import Foundation

// The model's classes as Xcode generates them ("Class Definition" code generation), with the
// mechanical port: `@NSManaged` → `@Managed`, `@objc(Book)` removed.

public class Author: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Author> {
        NSFetchRequest<Author>(entityName: "Author")
    }

    @Managed public var born: Date?
    @Managed public var name: String
    @Managed public var books: Set<Book>?
}

public class Book: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Book> {
        NSFetchRequest<Book>(entityName: "Book")
    }

    @Managed public var isbn: String?
    @Managed public var pages: Int32
    @Managed public var price: Decimal?
    @Managed public var published: Date?
    @Managed public var rating: Double
    /// A plain `var` (not in the model) between managed properties, as apps keep UI state.
    public var isHighlighted = false
    @Managed public var title: String
    @Managed public var author: Author?
    public var note: String?
}

public class Ebook: Book {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Ebook> {
        NSFetchRequest<Ebook>(entityName: "Ebook")
    }

    @Managed public var fileSize: Int64
}
