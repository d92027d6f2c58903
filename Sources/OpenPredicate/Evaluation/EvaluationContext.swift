import Foundation

/// What one evaluation carries besides the object: variable bindings (including the iteration
/// variables of `SUBQUERY`) and the first error met, if any.
struct EvaluationContext {
    /// `$NAME` values. A value that is an `NSExpression` is evaluated against the object.
    var variables: [String: Any]
    /// The first problem met (an unbound variable, a value of the wrong type); evaluation goes
    /// on with `nil`/`false` for the failing part.
    var error: EvaluationError?

    init(variables: [String: Any] = [:]) {
        self.variables = variables
    }

    mutating func fail(_ error: EvaluationError) {
        if self.error == nil { self.error = error }
    }
}

/// A problem met while evaluating: Apple raises an exception for these.
struct EvaluationError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }

    static func unboundVariable(_ name: String) -> EvaluationError {
        EvaluationError(message: "Can't get value for '\(name)' in bindings")
    }

    var nsError: NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSKeyValueValidationError,
                userInfo: [NSLocalizedDescriptionKey: message, NSDebugDescriptionErrorKey: message])
    }
}

/// The object a predicate is evaluated against, with its `KeyValueCodable` view found once:
/// on Linux a cast to a protocol costs about 100 ns, so key paths must not each repeat it.
struct EvaluationSubject {
    let object: Any?
    let codable: KeyValueCodable?

    /// Casts `object` once.
    @inline(__always)
    init(_ object: Any?) {
        self.object = object
        self.codable = object as? KeyValueCodable
    }

    /// No cast at all: the caller knows the static type.
    @inline(__always)
    init(codable: KeyValueCodable) {
        self.object = codable
        self.codable = codable
    }

    /// The value of a single key on the subject.
    @inline(__always)
    func value(forKey key: String) -> Any? {
        if let codable {
            if let value = codable.value(forKey: key) { return value }
            return key == "self" ? object : nil
        }
        return KeyValueReader.value(of: object, forKey: key)
    }
}

/// A compiled expression: the value for an object.
typealias CompiledExpression = (EvaluationSubject, inout EvaluationContext) -> Any?
/// A compiled predicate: whether an object matches.
typealias CompiledPredicate = (EvaluationSubject, inout EvaluationContext) -> Bool
