import Foundation

/// What one evaluation carries besides the object: variable bindings (including the iteration
/// variables of `SUBQUERY`) and the first error met, if any.
struct EvaluationContext {
    /// `$NAME` values. A value that is an `NSExpression` is evaluated against the object.
    var variables: [String: Any]
    /// The first problem met (an unbound variable, a set operation on a non-collection); evaluation
    /// goes on with `nil`/`false` for the failing part, and the throwing twins
    /// (`evaluate(validating:)`, `expressionValue(validating:context:)`) report it.
    var error: EvaluationError?

    /// (`[String: Any]()`, not the literal `[:]`, which builds the empty dictionary through
    /// `init(dictionaryLiteral:)` on every evaluation.)
    init(variables: [String: Any] = [String: Any]()) {
        self.variables = variables
    }

    mutating func fail(_ error: EvaluationError) {
        if self.error == nil { self.error = error }
    }
}

/// A problem met while evaluating: Apple raises an exception for these.
struct EvaluationError: Error, CustomStringConvertible {
    let message: String
    /// Whether the non-throwing `evaluate(with:)` stops the process with Apple's exception
    /// (`NSInvalidArgumentException`) instead of answering false: for problems that make
    /// every answer meaningless (a pattern that is not a regular expression), not for those
    /// that `evaluate(with:)` has always answered false to (an unbound variable).
    var raises = false
    var description: String { message }

    static func unboundVariable(_ name: String) -> EvaluationError {
        EvaluationError(message: "Can't get value for '\(name)' in bindings")
    }

    /// `MATCHES` with a pattern that does not compile, in Apple's words (`Can't do regex
    /// matching, reason: Can't open pattern …`), naming the pattern and the string tested;
    /// `reason` is ICU's complaint as Foundation reports it.
    static func invalidRegex(pattern: String, string: String, reason: String) -> EvaluationError {
        EvaluationError(
            message: "Can't do regex matching, reason: Can't open pattern \(PredicatePrinter.quote(pattern)): "
                + "\(reason) (string \(PredicatePrinter.quote(string)), pattern \(PredicatePrinter.quote(pattern)))",
            raises: true)
    }

    var nsError: NSError {
        NSError(
            domain: NSCocoaErrorDomain, code: NSKeyValueValidationError,
            userInfo: [NSLocalizedDescriptionKey: message, NSDebugDescriptionErrorKey: message])
    }
}

/// The object a predicate is evaluated against, seen through `KeyValueCodable` once.
///
/// On Linux a cast to a protocol costs about 100 ns, so key paths must not each repeat it; and
/// copying an `Optional` existential goes through a generic value witness (~200 instructions),
/// so the view is stored non-optional: objects that do not conform are wrapped in
/// `ReflectedObject`, which reads them through `KeyValueReader`.
struct EvaluationSubject {
    let codable: KeyValueCodable
    /// The same object, when it reads integers and strings without an `Any` and its type is
    /// remembered (`KeyValueConformances`); nil otherwise.
    let scalar: ScalarKeyValueCodable?

    /// Casts `object` once. A `[String: Any]` (filtering decoded JSON or plist rows) is asked
    /// by its exact type first: the cast to `KeyValueCodable` would look for a conformance that
    /// a dictionary does not have, and reading it through `KeyValueReader` would ask again per
    /// key. A class whose conformance was found before (a managed object's) is not cast again
    /// (`KeyValueConformances`).
    /// Borrowed: an initializer's parameter is otherwise passed owned, which made every
    /// evaluation copy the `Any?` (through `Optional`'s generic value witnesses) and destroy it.
    @inline(__always)
    init(_ object: borrowing Any?) {
        if let dictionary = ExactValue.loadStored(object, as: [String: Any].self) {
            self.init(codable: DictionaryObject(dictionary: dictionary))
        } else if let remembered = KeyValueConformances.rememberedSubject(object) {
            self = remembered
        } else {
            self.init(codable: Self.resolve(object))
        }
    }

    /// The view of an object whose type is not remembered: as `init(_:)` promises, for any
    /// value (a `[String: Any]` inside a box included).
    @inline(never)
    static func resolve(_ object: Any?) -> KeyValueCodable {
        guard let object else { return ReflectedObject(object: nil) }
        if type(of: object) == [String: Any].self, let dictionary = ExactValue.load(object, as: [String: Any].self) {
            return DictionaryObject(dictionary: dictionary)
        }
        if let codable = KeyValueConformances.castAndRemember(object) { return codable }
        return ReflectedObject(object: object)
    }

    /// No cast at all: the caller knows the static type.
    @inline(__always)
    init(codable: KeyValueCodable) {
        self.codable = codable
        scalar = nil
    }

    /// An object that reads integers and strings without an `Any`.
    @inline(__always)
    init(scalar: ScalarKeyValueCodable) {
        codable = scalar
        self.scalar = scalar
    }

    /// The object itself (`SELF`).
    var object: Any? {
        if let wrapper = codable as? SubjectWrapper { return wrapper.wrapped }
        return codable
    }
}

/// A view `EvaluationSubject` puts around an object that is not `KeyValueCodable` itself.
protocol SubjectWrapper {
    /// The object the predicate was given.
    var wrapped: Any? { get }
}

/// An object without a `KeyValueCodable` conformance (a string, a plain struct, an array,
/// `nil`), read through `KeyValueReader`.
struct ReflectedObject: KeyValueCodable, SubjectWrapper {
    let object: Any?

    var wrapped: Any? { object }

    func value(forKey key: String) -> Any? {
        KeyValueReader.value(of: object, forKey: key)
    }
}

/// A `[String: Any]` read with a plain lookup: the answers `KeyValueReader` gives for one
/// (`self` is the dictionary, any other key its value), without asking the type per key.
struct DictionaryObject: KeyValueCodable, SubjectWrapper {
    let dictionary: [String: Any]

    var wrapped: Any? { dictionary }

    @inline(__always)
    func value(forKey key: String) -> Any? {
        key == "self" ? dictionary : dictionary[key]
    }
}

/// Runs a predicate over many objects: compiled once, one context for all of them.
///
/// Visible to client code only so that the `@inlinable` filtering loops, specialized there,
/// can call it: a generic loop compiled in this module would iterate through witness tables.
@usableFromInline
struct _PredicateMatcher {
    private let test: CompiledPredicate
    private var context = EvaluationContext()

    @usableFromInline
    init(_ predicate: Foundation.NSPredicate) {
        test = PredicateTree.compile(predicate)
    }

    /// Whether `object` matches; stops where `evaluate(with:)` does.
    @usableFromInline
    mutating func matches(_ object: Any?) -> Bool {
        let result = test(EvaluationSubject(object), &context)
        if context.error != nil { raiseIfNeeded() }
        return result
    }

    /// Whether a `KeyValueCodable` object matches; no dynamic cast.
    @usableFromInline
    mutating func matches(codable: KeyValueCodable) -> Bool {
        let result = test(EvaluationSubject(codable: codable), &context)
        if context.error != nil { raiseIfNeeded() }
        return result
    }

    @inline(never)
    private func raiseIfNeeded() {
        if let error = context.error, error.raises { AppleException.invalidArgument(error.message) }
    }
}

/// A compiled expression: the value for an object.
typealias CompiledExpression = (EvaluationSubject, inout EvaluationContext) -> Any?
/// A compiled predicate: whether an object matches.
typealias CompiledPredicate = (EvaluationSubject, inout EvaluationContext) -> Bool
