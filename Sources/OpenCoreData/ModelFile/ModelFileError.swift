import OpenPredicate

/// What went wrong while loading a model file, and where: the file, the line and column of the
/// element at fault (when there is one), and the error that caused it (a predicate's parse error).
///
/// Inside, a plain struct; outside, `nsError` turns it into an `NSError` in `NSCocoaErrorDomain`
/// whose description reads like a compiler diagnostic: `/path/contents:12:9: message`.
struct ModelFileError: Error {
    /// The kind of failure; it picks the Cocoa error code.
    enum Kind {
        /// Nothing at the URL (`NSFileReadNoSuchFileError`, 260).
        case noSuchFile
        /// The file exists but could not be read (`NSFileReadNoPermissionError`, 257, or
        /// `NSFileReadUnknownError`, 256).
        case unreadable(code: Int)
        /// Not a file URL (`NSFileReadUnsupportedSchemeError`, 262).
        case unsupportedScheme
        /// Malformed XML, or XML that does not describe a valid model
        /// (`NSFileReadCorruptFileError`, 259).
        case corrupt
        /// Something OpenCoreData cannot read yet: a part of a compiled model it does not
        /// decode, such as a derived attribute or a predicate with a function
        /// (`NSFeatureUnsupportedError`, 3328).
        case unsupportedFormat
    }

    /// Keys of the `userInfo` of the `NSError`, besides Foundation's.
    enum UserInfoKey {
        /// The 1-based line of the element at fault (`Int`).
        static let line = "NSModelFileLine"
        /// The 1-based column where the parser was when it met the element or the error (`Int`).
        static let column = "NSModelFileColumn"
    }

    var kind: Kind
    var message: String
    var file: URL
    var line: Int?
    var column: Int?
    var underlying: NSError?

    init(_ kind: Kind, _ message: String, file: URL, line: Int? = nil, column: Int? = nil, underlying: NSError? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.underlying = underlying
    }

    /// An error about the element at `location` (line 0: an element of a compiled model, which
    /// has no lines; the message names the element).
    init(_ message: String, at location: ModelFileLocation, underlying: NSError? = nil) {
        let line = location.line > 0 ? location.line : nil
        self.init(
            .corrupt, message, file: location.file, line: line, column: line == nil ? nil : location.column,
            underlying: underlying)
    }

    var code: Int {
        switch kind {
        case .noSuchFile: return NSFileReadNoSuchFileError
        case .unreadable(let code): return code
        case .unsupportedScheme: return NSFileReadUnsupportedSchemeError
        case .corrupt: return NSFileReadCorruptFileError
        case .unsupportedFormat: return NSFeatureUnsupportedError
        }
    }

    /// `path:line:column: message`, leaving out what is unknown.
    var description: String {
        var place = file.isFileURL ? file.path : file.absoluteString
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): \(message)"
    }

    var nsError: NSError {
        var info: [String: Any] = [NSURLErrorKey: file]
        if file.isFileURL { info[NSFilePathErrorKey] = file.path }
        if let line { info[UserInfoKey.line] = line }
        if let column { info[UserInfoKey.column] = column }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return CoreDataError.make(code: code, reason: description, userInfo: info)
    }
}

/// Where an element of a model file starts: the file, and the line and column XMLParser reported
/// when it met the element's start tag (the end of the tag, for a tag spread over several lines).
struct ModelFileLocation {
    var file: URL
    var line: Int
    var column: Int
}
