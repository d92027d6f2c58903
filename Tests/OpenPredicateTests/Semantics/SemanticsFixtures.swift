@testable import OpenPredicate
import Testing

// Shared fixtures and helpers for the semantics suite. Row numbers refer to
// /work/shared/reference/predicate-cases.md.

/// Parses with the throwing initializer, so a parser gap fails one test instead of the process.
func semanticsPredicate(_ format: String, _ args: [Any] = []) throws -> NSPredicate {
    try NSPredicate(validatingFormat: format, argumentArray: args)
}

/// Parses `format` with `args` and evaluates it against `object` (with optional bindings).
func semanticsEval(_ format: String, _ args: [Any] = [], on object: Any? = nil,
                   variables: [String: Any]? = nil) throws -> Bool {
    let predicate = try semanticsPredicate(format, args)
    if let variables {
        return predicate.evaluate(with: object, substitutionVariables: variables)
    }
    return predicate.evaluate(with: object)
}

/// The value of an expression format string.
func semanticsValue(_ format: String, _ args: [Any] = [], on object: Any? = nil,
                    context: [String: Any] = [:]) throws -> Any? {
    let expression = try NSExpression(validatingFormat: format, argumentArray: args)
    let dictionary = NSMutableDictionary()
    for (key, value) in context { dictionary[key] = value }
    return expression.expressionValue(with: object, context: context.isEmpty ? nil : dictionary)
}

/// A number result as a Double (any width), or nil.
func semanticsDouble(_ value: Any?) -> Double? {
    guard let value = ValueSemantics.unwrapOptional(value) else { return nil }
    return ValueSemantics.number(value)?.doubleValue
}

/// The strings of a collection result, as a set (set-operation results are compared as sets).
func semanticsStringSet(_ value: Any?) -> Set<String>? {
    guard let elements = ExpressionCompiler.collectionElements(value) else { return nil }
    return Set(elements.compactMap { ValueSemantics.string($0) })
}

/// Fixture G (GNUstep basic.m, mySTEP, Cappuccino).
let fixtureG: [String: Any] = [
    "title": "A Title",
    "Record1": ["Name": "John", "Age": 34, "Children": ["Kid1", "Kid2"]] as [String: Any],
    "Record2": ["Name": "Mary", "Age": 30, "Children": ["Kid1", "Girl1"]] as [String: Any],
]

/// Fixture C (Cocotron).
let fixtureC: [String: Any] = ["name": "Something", "value": 17.5]

/// Fixture W (WinObjC): an animal.
final class SemanticsAnimal: KeyValueCodable, CustomStringConvertible {
    let name: String
    let age: Int
    let speed: Int

    init(name: String = "testAnimal", age: Int, speed: Int = 115) {
        self.name = name
        self.age = age
        self.speed = speed
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "age": age as NSNumber
        case "speed": speed as NSNumber
        default: nil
        }
    }

    var description: String { "\(name)(\(age),\(speed))" }
}

/// W: 10 animals "testAnimal", age 0...9, speed 115.
func fixtureW() -> [SemanticsAnimal] {
    (0..<10).map { SemanticsAnimal(age: $0) }
}

/// Fixture O (swift-foundation NSPredicateConversionTests).
final class SemanticsObject: KeyValueCodable {
    let a = 1
    let b = "Hello"
    let c = 2.3
    let d = 4
    let f = true
    let g = [5, 6, 7, 8, 9]
    let h = ["A": 1, "B": 2]
    let i = Date.distantFuture
    let j: String? = nil
    let k = UUID()
    let l = Data([1, 2, 3])
    let m = URL(string: "http://apple.com")!

    func value(forKey key: String) -> Any? {
        switch key {
        case "a": a
        case "b": b
        case "c": c
        case "d": d
        case "f": f
        case "g": g
        case "h": h
        case "i": i
        case "j": j as Any?
        case "k": k
        case "l": l
        case "m": m
        default: nil
        }
    }
}

/// A person for the daydreamboy rows.
final class SemanticsPerson: KeyValueCodable {
    let firstName: String
    let lastName: String
    let isMale: Bool

    init(_ firstName: String, _ lastName: String, isMale: Bool = true) {
        self.firstName = firstName
        self.lastName = lastName
        self.isMale = isMale
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "firstName": firstName
        case "lastName": lastName
        case "isMale": isMale
        default: nil
        }
    }
}

func semanticsPeople() -> [SemanticsPerson] {
    [SemanticsPerson("Adam", "Smith"), SemanticsPerson("Lily", "Ames", isMale: false),
     SemanticsPerson("Émile", "Zola"), SemanticsPerson("Bob", "Jones"), SemanticsPerson("alice", "Brown", isMale: false)]
}
