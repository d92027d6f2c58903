import CoreData

/// A store the tests build themselves with the library: a `contents` model file (Author, Book
/// and its sub-entity Novel, a template, a fetched property, a uniqueness constraint) and an
/// `NSSQLiteStoreType` file with 3 authors and 6 books.
struct LibraryFixture {
    let folder: URL
    var model: String { folder.appendingPathComponent("Library.xcdatamodel").path }
    var store: String { folder.appendingPathComponent("Library.sqlite").path }
    /// `--model M --store S`.
    var files: [String] { ["--model", model, "--store", store] }

    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Author" representedClassName="Author" syncable="YES">
                <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="name" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
                <fetchedProperty name="longBooks" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="author == $FETCH_SOURCE AND pages &gt; 500"/>
                </fetchedProperty>
            </entity>
            <entity name="Book" representedClassName="Book" syncable="YES">
                <attribute name="cover" optional="YES" attributeType="Binary"/>
                <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
                <attribute name="rating" optional="YES" attributeType="Double" usesScalarValueType="NO"/>
                <attribute name="subtitle" optional="YES" attributeType="String"/>
                <attribute name="title" attributeType="String"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="title"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Novel" representedClassName="Novel" parentEntity="Book" syncable="YES">
                <attribute name="genre" optional="YES" attributeType="String"/>
            </entity>
            <fetchRequest name="Cheaper" entity="Book" predicateString="price &lt; $MAX"/>
        </model>
        """

    /// (title, author, price, pages, rating, genre for novels, subtitle)
    static let books: [(String, Int, String, Int, Double?, String?, String?)] = [
        ("Jane Eyre", 0, "9.99", 532, 4.5, "Gothic", nil),
        ("Shirley", 0, "12.50", 624, 3.75, nil, nil),
        ("Germinal", 1, "11", 592, 4.25, "Naturalism", nil),
        ("L'Assommoir", 1, "8.5", 480, nil, nil, nil),
        ("Mort", 2, "7.99", 272, 4.75, "Fantasy", nil),
        ("Wyrd Sisters", 2, "8.99", 284, 4.5, nil, "Discworld, \"book 6\""),
    ]

    /// Writes the model and the store into a new temporary folder.
    static func make() throws -> LibraryFixture {
        let fixture = LibraryFixture(folder: try ToolRunner.temporaryFolder("library"))
        let modelFolder = URL(fileURLWithPath: fixture.model)
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: modelFolder.appendingPathComponent("contents"))
        let context = try fixture.context()
        try context.performAndWait {
            var authors: [NSManagedObject] = []
            for (name, born) in [("Charlotte Brontë", "1816-04-21"), ("Émile Zola", "1840-04-02"), ("Terry Pratchett", "1948-04-28")] {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue(name, forKey: "name")
                author.setValue(ISO8601DateFormatter().date(from: born + "T00:00:00Z"), forKey: "born")
                authors.append(author)
            }
            for (title, author, price, pages, rating, genre, subtitle) in books {
                let book = NSEntityDescription.insertNewObject(forEntityName: genre == nil ? "Book" : "Novel", into: context)
                book.setValue(title, forKey: "title")
                book.setValue(authors[author], forKey: "author")
                book.setValue(Decimal(string: price), forKey: "price")
                book.setValue(pages, forKey: "pages")
                book.setValue(rating, forKey: "rating")
                book.setValue(subtitle, forKey: "subtitle")
                if let genre { book.setValue(genre, forKey: "genre") }
                if title == "Mort" { book.setValue(Data((0..<20).map { UInt8($0 * 13) }), forKey: "cover") }
            }
            try context.save()
        }
        return fixture
    }

    /// A private-queue context on the store (created if missing) with the model file.
    func context() throws -> NSManagedObjectContext {
        let model = try NSManagedObjectModel(validatingContentsOf: URL(fileURLWithPath: model))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: store))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The bytes of the store file and its `-wal` (empty when absent).
    func storeBytes() throws -> [Data] {
        try ["", "-wal"].map { suffix in
            let path = store + suffix
            return FileManager.default.fileExists(atPath: path) ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data()
        }
    }
}
