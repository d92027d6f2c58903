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

/// A compiled expression: the value for an object.
typealias CompiledExpression = (Any?, inout EvaluationContext) -> Any?
/// A compiled predicate: whether an object matches.
typealias CompiledPredicate = (Any?, inout EvaluationContext) -> Bool
