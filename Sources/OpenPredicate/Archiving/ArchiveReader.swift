import Foundation

/// Typed, validating reads from the object being decoded: every key is checked for presence and
/// type, and a wrong value is an `ArchivingError` naming the key, never a trap.
///
/// Objects are decoded against one broad allow-list (`classes`: our predicate, expression and
/// operator classes and the constant classes) and then checked for the type the key needs.
/// Passing corelibs only the expected class would be stricter but worse: under secure coding,
/// corelibs stops the process (`fatalError`) when an archive holds an object of a class that was
/// not allowed, rather than reporting an error. Classes outside this list still do that, inside
/// corelibs and before any of our code runs.
struct ArchiveReader {
    let coder: NSCoder

    /// Every class an object inside a predicate, expression or sort descriptor archive may have.
    static let classes: [AnyClass] =
        [NSExpression.self, NSPredicate.self, PredicateOperator.self, NSSortDescriptor.self]
        + ArchivedConstant.classes

    func contains(_ key: String) -> Bool {
        coder.containsValue(forKey: key)
    }

    private func require(_ key: String) throws(ArchivingError) {
        guard contains(key) else { throw .malformed("The archive has no \(key)", key: key) }
    }

    /// An integer stored inline under `key`, which must be present.
    ///
    /// A value of another type reads as 0: corelibs offers no way to tell them apart.
    func integer(_ key: String) throws(ArchivingError) -> Int {
        try require(key)
        return coder.decodeInteger(forKey: key)
    }

    /// A `Bool` stored inline under `key`, which must be present.
    func bool(_ key: String) throws(ArchivingError) -> Bool {
        try require(key)
        return coder.decodeBool(forKey: key)
    }

    /// The object under `key`, which must be present (it may be the archive's nil).
    func object(_ key: String) throws(ArchivingError) -> Any? {
        try require(key)
        let object = coder.decodeObject(of: Self.classes, forKey: key)
        // Something inside failed and corelibs recorded why (a real nil leaves no error). The
        // object may still be there: corelibs leaves a failed element out of an array.
        if let unarchiver = coder as? NSKeyedUnarchiver, unarchiver.error != nil {
            throw .nestedFailure
        }
        return object
    }

    /// The non-nil object under `key`.
    private func nonNil(_ key: String) throws(ArchivingError) -> Any {
        guard let object = try object(key) else { throw .malformed("\(key) is nil", key: key) }
        return object
    }

    private static func kind(_ value: Any) -> String {
        String(describing: type(of: value))
    }

    func string(_ key: String) throws(ArchivingError) -> String {
        let object = try nonNil(key)
        guard let string = ValueSemantics.string(object) else {
            throw .malformed("\(key) is a \(Self.kind(object)), not a string", key: key)
        }
        return string
    }

    /// A string under `key`, or nil when the key is absent or holds nil.
    func optionalString(_ key: String) throws(ArchivingError) -> String? {
        guard contains(key) else { return nil }
        guard let object = try object(key) else { return nil }
        guard let string = ValueSemantics.string(object) else {
            throw .malformed("\(key) is a \(Self.kind(object)), not a string", key: key)
        }
        return string
    }

    func expression(_ key: String) throws(ArchivingError) -> ExpressionNode {
        let object = try nonNil(key)
        guard let expression = object as? NSExpression else {
            throw .malformed("\(key) is a \(Self.kind(object)), not an NSExpression", key: key)
        }
        return expression.node
    }

    func predicate(_ key: String) throws(ArchivingError) -> PredicateNode {
        let object = try nonNil(key)
        guard let predicate = object as? Foundation.NSPredicate else {
            throw .malformed("\(key) is a \(Self.kind(object)), not an NSPredicate", key: key)
        }
        return PredicateTree.node(predicate)
    }

    private func array(_ key: String) throws(ArchivingError) -> NSArray {
        let object = try nonNil(key)
        guard let array = object as? NSArray else {
            throw .malformed("\(key) is a \(Self.kind(object)), not an array", key: key)
        }
        return array
    }

    func expressions(_ key: String) throws(ArchivingError) -> [ExpressionNode] {
        var nodes: [ExpressionNode] = []
        for element in try array(key) {
            guard let expression = element as? NSExpression else {
                throw .malformed("\(key) holds a \(Self.kind(element)), not an NSExpression", key: key)
            }
            nodes.append(expression.node)
        }
        return nodes
    }

    func predicates(_ key: String) throws(ArchivingError) -> [PredicateNode] {
        var nodes: [PredicateNode] = []
        for element in try array(key) {
            guard let predicate = element as? Foundation.NSPredicate else {
                throw .malformed("\(key) holds a \(Self.kind(element)), not an NSPredicate", key: key)
            }
            nodes.append(PredicateTree.node(predicate))
        }
        return nodes
    }

    func predicateOperator(_ key: String) throws(ArchivingError) -> PredicateOperator {
        let object = try nonNil(key)
        guard let predicateOperator = object as? PredicateOperator else {
            throw .malformed("\(key) is a \(Self.kind(object)), not an operator", key: key)
        }
        return predicateOperator
    }
}
