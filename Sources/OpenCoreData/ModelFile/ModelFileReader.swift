import OpenPredicate

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of a model file: its name, its XML attributes, its child elements in file order,
/// and where it starts. Text content is dropped (model files have none that matters).
struct ModelFileElement {
    var name: String
    var attributes: [String: String]
    var children: [ModelFileElement] = []
    var location: ModelFileLocation

    /// The children with the given element name, in file order.
    func children(named name: String) -> [ModelFileElement] {
        children.filter { $0.name == name }
    }
}

/// Reads the XML of a model file (the `contents` file of an `.xcdatamodel`) into a tree of
/// `ModelFileElement`s with line numbers, using Foundation's `XMLParser`.
///
/// The first XML error stops the parse and becomes a `ModelFileError` with its line and column
/// (XMLParser keeps going after some errors, and reports the last one; the first is the one to
/// fix). External entities are never resolved. The tree is built with an explicit stack, and an
/// element nested deeper than `ModelFileLimits.maximumDepth` stops the parse with an error, so a
/// hostile file cannot overflow the call stack (libxml2 itself does not stop it: a tree 50,000
/// levels deep was built, and its recursive teardown crashed).
enum ModelFileReader {
    /// Parses `data`, read from `file`, and returns the root element.
    static func read(_ data: Data, file: URL) throws -> ModelFileElement {
        let parser = XMLParser(data: data)
        let collector = TreeCollector(file: file)
        parser.delegate = collector
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        _ = parser.parse()
        if let failure = collector.failure { throw failure }
        if let error = parser.parserError {
            let code = (error as NSError).code
            throw ModelFileError(
                .corrupt, "malformed XML: \(xmlErrorDescription(code))", file: file, line: parser.lineNumber,
                column: parser.columnNumber)
        }
        guard let root = collector.root else {
            throw ModelFileError(.corrupt, "malformed XML: the file has no root element", file: file, line: 1)
        }
        return root
    }

    /// A readable description of a libxml2 error code (XMLParser on Linux passes libxml2's codes
    /// through unchanged, and no message).
    static func xmlErrorDescription(_ code: Int) -> String {
        let known: [Int: String] = [
            4: "start tag expected, '<' not found (the file is empty or not XML)",
            5: "extra content at the end of the document, or the document ends too early",
            9: "invalid character",
            23: "entity reference without ';'",
            26: "undeclared entity",
            38: "'<' in an attribute value",
            39: "attribute value without quotes",
            40: "attribute value not finished",
            41: "attribute without a value",
            42: "attribute given twice",
            45: "comment not finished",
            65: "space required",
            68: "name expected",
            73: "'>' expected",
            76: "opening and ending tag mismatch",
            77: "premature end of data in tag",
            89: "entity loop",
        ]
        return "\(known[code] ?? "XML syntax error") (XML error \(code))"
    }
}

/// The XMLParser delegate that builds the element tree.
private final class TreeCollector: NSObject, XMLParserDelegate {
    let file: URL
    var stack: [ModelFileElement] = []
    var root: ModelFileElement?
    var failure: ModelFileError?

    init(file: URL) {
        self.file = file
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard failure == nil else { return }
        let location = ModelFileLocation(file: file, line: parser.lineNumber, column: parser.columnNumber)
        if root != nil && stack.isEmpty {
            fail(parser, ModelFileError("malformed XML: a second root element <\(elementName)>", at: location))
            return
        }
        guard stack.count < ModelFileLimits.maximumDepth else {
            fail(
                parser,
                ModelFileError(
                    "elements are nested more than \(ModelFileLimits.maximumDepth) levels deep (<\(elementName)>); "
                        + "Xcode's model files use 5", at: location))
            return
        }
        stack.append(ModelFileElement(name: elementName, attributes: attributes, location: location))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard failure == nil, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard failure == nil else { return }
        let code = (parseError as NSError).code
        fail(
            parser,
            ModelFileError(
                .corrupt, "malformed XML: \(ModelFileReader.xmlErrorDescription(code))", file: file,
                line: parser.lineNumber, column: parser.columnNumber))
    }

    private func fail(_ parser: XMLParser, _ error: ModelFileError) {
        failure = error
        parser.abortParsing()
    }
}
