import OpenPredicate

extension NSManagedObjectModel {
    /// Loads the model described by an Xcode model file.
    ///
    /// ```swift
    /// if let url = Bundle.module.url(forResource: "Model", withExtension: "xcdatamodeld"),
    ///     let model = NSManagedObjectModel(contentsOf: url)
    /// {
    ///     print(model.entitiesByName.keys.sorted())
    /// }
    /// ```
    ///
    /// `url` may be an `.xcdatamodeld` folder (its current version is loaded, as named by its
    /// `.xccurrentversion`; without one, its only or last version), an `.xcdatamodel` folder
    /// (its `contents` file is loaded), or a `contents` XML file itself, whatever its name.
    /// The model holds the file's entities in file order, with their attributes (default values
    /// converted to the attribute's type, minimum/maximum/regular expression as validation
    /// predicates), derived attributes, relationships (destinations and inverses linked),
    /// fetched properties, inheritance, uniqueness constraints, fetch indexes, user info and
    /// renaming identifiers, and the file's configurations and fetch request templates.
    ///
    /// Returns `nil` when the file is missing or cannot be loaded, as Apple's does; use
    /// `init(validatingContentsOf:)` to learn why.
    ///
    /// **Differences from Apple:** Apple's loads only *compiled* models (`.mom`, `.momd`), which
    /// Xcode makes at build time; on Linux there is no model compiler, so this loads the model
    /// files themselves, and compiled models are not supported yet (the result is `nil`).
    /// See [init(contentsOf:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/init(contentsof:)).
    ///
    /// - Parameter url: A file URL of a model file or folder.
    public convenience init?(contentsOf url: URL) {
        self.init()
        do {
            try load(contentsOf: url)
        } catch {
            return nil
        }
    }

    /// The throwing twin of `init(contentsOf:)`: loads the model described by an Xcode model
    /// file, or throws an error that says what is wrong and where.
    ///
    /// ```swift
    /// do {
    ///     let model = try NSManagedObjectModel(validatingContentsOf: url)
    /// } catch {
    ///     print(error.localizedDescription)
    ///     // /path/Model.xcdatamodel/contents:12:71: unknown attributeType 'Integer 8' of attribute 'age'
    /// }
    /// ```
    ///
    /// The error is an `NSError` in `NSCocoaErrorDomain` whose description starts with the
    /// file's path and, for a problem inside the file, the line and column of the element at
    /// fault (`path:line:column: message`); its `userInfo` holds `NSFilePathErrorKey`,
    /// `NSURLErrorKey`, `"NSModelFileLine"` and `"NSModelFileColumn"` (`Int`s), and for a
    /// predicate or expression that does not parse, the parser's error under
    /// `NSUnderlyingErrorKey`. Codes:
    /// - `NSFileReadNoSuchFileError` (260): nothing at the URL, a folder without a `contents`
    ///   file, or a current version that is missing;
    /// - `NSFileReadCorruptFileError` (259): malformed XML, or XML that is not a valid model: an
    ///   unknown attribute type or element, an entity, parent entity, destination, inverse or
    ///   configuration member that does not exist, an entity that inherits from itself, a
    ///   predicate or derivation expression that does not parse, a derivation that reads a key
    ///   its entity does not have, a value that does not fit its attribute's type, a name used
    ///   twice, a name that breaks Xcode's rules (an entity name is an ASCII identifier that
    ///   starts with an uppercase letter, a property name one that starts with a lowercase
    ///   letter and is not an `NSObject`/`NSManagedObject` method such as `description`; at most
    ///   256 characters), or elements nested more than 256 levels deep (Xcode writes 5);
    /// - `NSFeatureUnsupportedError` (3328): a compiled model (`.mom`, `.momd`);
    /// - `NSFileReadNoPermissionError` (257) or `NSFileReadUnknownError` (256): the file could
    ///   not be read; `NSFileReadUnsupportedSchemeError` (262): not a file URL.
    ///
    /// Loading takes time about linear in the file's size, however deep its inheritance
    /// hierarchies (checks that read an entity's inherited properties, such as an inverse or a
    /// derivation, are linear in those properties); no file, however hostile, stops the process
    /// or hangs it.
    ///
    /// **Differences from Apple:** an OpenCoreData addition.
    ///
    /// - Parameter url: A file URL of a model file or folder.
    /// - Throws: An `NSError` as described above.
    public convenience init(validatingContentsOf url: URL) throws {
        self.init()
        try load(contentsOf: url)
    }

    /// Parses the model file at `url` into this (empty) model.
    private func load(contentsOf url: URL) throws {
        do {
            let file = try ModelFileLocator.contentsFile(for: url)
            let root = try ModelFileReader.read(try ModelFileLocator.data(of: file), file: file)
            try ModelFileBuilder.build(root, into: self)
        } catch let error as ModelFileError {
            throw error.nsError
        }
    }
}
