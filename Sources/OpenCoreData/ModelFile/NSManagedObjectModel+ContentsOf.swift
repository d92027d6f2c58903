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
    /// (its `contents` file is loaded, or, in a folder saved by Xcode 3, its binary `elements`
    /// file), a `contents` XML file itself, whatever its name, or a compiled model: a `.momd`
    /// folder (its current version, as named by its `VersionInfo.plist`; without one, its only
    /// or last `.mom`) or a `.mom` file. An `.omo` file (an optimized model) loads the `.mom` of
    /// the same name beside it. The model holds the file's entities in file order, with their attributes (default values
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
    /// files themselves as well. A compiled model is read from its archive without running any
    /// archived class, and gives the same model as its `contents` XML (the same entities,
    /// properties and `entityVersionHashesByName`); derived and composite attributes, partial
    /// fetch indexes and predicates that call functions are not read from compiled models yet
    /// (the result is `nil`; `init(validatingContentsOf:)` says which).
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
    /// - `NSFileReadCorruptFileError` (259): malformed XML, or a compiled model or `elements`
    ///   file that is not a valid keyed archive of a model (the message names the archived
    ///   object and key at fault: a reference out of range, a value of the wrong type, a
    ///   container nested too deeply or containing itself), or XML that is not a valid model: an
    ///   unknown attribute type or element, an entity, parent entity, destination, inverse or
    ///   configuration member that does not exist, an entity that inherits from itself, a
    ///   predicate or derivation expression that does not parse, a derivation that reads a key
    ///   its entity does not have, a value that does not fit its attribute's type, a name used
    ///   twice, a name that breaks Xcode's rules (an entity name is an ASCII identifier that
    ///   starts with an uppercase letter, a property name one that starts with a lowercase
    ///   letter and is not an `NSObject`/`NSManagedObject` method such as `description`; at most
    ///   256 characters), or elements nested more than 256 levels deep (Xcode writes 5);
    /// - `NSFeatureUnsupportedError` (3328): a part of a compiled model that is not read yet
    ///   (a derived or composite attribute, a partial index, a predicate with a function, an
    ///   `.omo` without its `.mom`);
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

    /// Parses the model file at `url` into this (empty) model and remembers where it came from.
    private func load(contentsOf url: URL) throws {
        do {
            let file = try ModelFileLocator.contentsFile(for: url)
            let data = try ModelFileLocator.data(of: file)
            if BinaryPropertyList.isBinaryPropertyList(data) {
                try Self.loadArchive(data, file: file, into: self)
            } else {
                try ModelFileBuilder.build(try ModelFileReader.read(data, file: file), into: self)
            }
            sourceFileURL = url.standardizedFileURL
        } catch let error as ModelFileError {
            throw error.nsError
        }
    }

    /// Reads a compiled model or an Xcode 3 `elements` file, told apart by the archive's root.
    static func loadArchive(_ data: Data, file: URL, into model: NSManagedObjectModel) throws {
        let archive = try ArchiveGraph(data: data, file: file)
        switch archive.root.className {
        case "NSManagedObjectModel": try CompiledModelReader.read(archive, into: model)
        case "XDPMModel": try ElementsModelReader.read(archive, into: model)
        default:
            throw ModelFileError(
                .corrupt, "a keyed archive of \(archive.root.className), not of a Core Data model", file: file)
        }
    }
}
