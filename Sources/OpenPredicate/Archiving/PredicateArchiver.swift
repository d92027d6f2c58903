import Foundation

/// Writes predicate and expression trees into a keyed archive: the archiving back end, one
/// switch over each tree.
///
/// Each node becomes one object, laid out as Apple lays it out (see `ArchiveKey`): a comparison
/// holds its expressions and a `PredicateOperator`; a compound its subpredicates; an expression
/// its type and operands. Children are written through the stand-ins `ArchivedNode` and
/// `ArchivedArray`, which name the class the child decodes as.
///
/// What cannot be archived — a block predicate or expression, a constant of an unsupported type,
/// a tree nested deeper than `ArchiveLimits.maxDepth` — is reported to the archiver: an
/// `NSKeyedArchiver` gets it as its `error`, so `archivedData(withRootObject:requiringSecureCoding:)`
/// throws it (Apple raises an exception instead). The rest of the archive is then meaningless.
enum PredicateArchiver {
    // MARK: - Predicates

    static func encode(_ node: PredicateNode, to coder: NSCoder) {
        write(to: coder) { () throws(ArchivingError) in
            switch node {
            case .constant(let value):
                coder.encode(value, forKey: ArchiveKey.predicateValue)
            case .comparison(let comparison):
                coder.encode(PredicateOperator(comparison), forKey: ArchiveKey.predicateOperator)
                coder.encode(ArchivedNode(comparison.left), forKey: ArchiveKey.leftExpression)
                coder.encode(ArchivedNode(comparison.right), forKey: ArchiveKey.rightExpression)
            case .and(let children):
                coder.encode(Int(NSCompoundPredicate.LogicalType.and.rawValue), forKey: ArchiveKey.compoundPredicateType)
                coder.encode(ArchivedArray(children.map(ArchivedNode.init)), forKey: ArchiveKey.subpredicates)
            case .or(let children):
                coder.encode(Int(NSCompoundPredicate.LogicalType.or.rawValue), forKey: ArchiveKey.compoundPredicateType)
                coder.encode(ArchivedArray(children.map(ArchivedNode.init)), forKey: ArchiveKey.subpredicates)
            case .not(let child):
                coder.encode(Int(NSCompoundPredicate.LogicalType.not.rawValue), forKey: ArchiveKey.compoundPredicateType)
                coder.encode(ArchivedArray([ArchivedNode(child)]), forKey: ArchiveKey.subpredicates)
            case .opaque(let opaque):
                throw unarchivable(opaque.predicate)
            }
        }
    }

    /// The error for a predicate we can only evaluate, not look into.
    static func unarchivable(_ predicate: Foundation.NSPredicate) -> ArchivingError {
        .unarchivable(
            "Can't archive a \(type(of: predicate)): block predicates (NSPredicate(block:)) and "
                + "subclasses from outside OpenPredicate cannot be archived")
    }

    // MARK: - Expressions

    static func encode(_ node: ExpressionNode, to coder: NSCoder) {
        write(to: coder) { () throws(ArchivingError) in
            func type(_ type: UInt) {
                coder.encode(Int(type), forKey: ArchiveKey.expressionType)
            }
            func expressions(_ nodes: [ExpressionNode], forKey key: String) {
                coder.encode(ArchivedArray(nodes.map(ArchivedNode.init)), forKey: key)
            }
            switch node {
            case .constant(let constant):
                type(NSExpression.ExpressionType.constantValue.rawValue)
                try ArchivedConstant.encode(constant.value, to: coder)
            case .evaluatedObject:
                type(NSExpression.ExpressionType.evaluatedObject.rawValue)
            case .variable(let name):
                type(NSExpression.ExpressionType.variable.rawValue)
                coder.encode(name, forKey: ArchiveKey.variable)
            case .keyPath(let path):
                type(NSExpression.ExpressionType.keyPath.rawValue)
                coder.encode(path.string, forKey: ArchiveKey.keyPath)
            case .function(let name, let arguments):
                try checkFunction(name, arguments)
                // `$x.name` is a `valueForKeyPath:` function; Apple calls it a key path expression.
                let kind: NSExpression.ExpressionType = name == "valueForKeyPath:" ? .keyPath : .function
                type(kind.rawValue)
                coder.encode(name, forKey: ArchiveKey.selectorName)
                expressions(arguments, forKey: ArchiveKey.arguments)
            case .customFunction(let receiver, let selector, let arguments):
                type(NSExpression.ExpressionType.function.rawValue)
                coder.encode(ArchivedNode(receiver), forKey: ArchiveKey.operand)
                coder.encode(selector, forKey: ArchiveKey.selectorName)
                expressions(arguments, forKey: ArchiveKey.arguments)
            case .aggregate(let elements):
                type(NSExpression.ExpressionType.aggregate.rawValue)
                expressions(elements, forKey: ArchiveKey.collection)
            case .set(let operation, let left, let right):
                switch operation {
                case .union: type(NSExpression.ExpressionType.unionSet.rawValue)
                case .intersect: type(NSExpression.ExpressionType.intersectSet.rawValue)
                case .minus: type(NSExpression.ExpressionType.minusSet.rawValue)
                }
                coder.encode(ArchivedNode(left), forKey: ArchiveKey.leftExpression)
                coder.encode(ArchivedNode(right), forKey: ArchiveKey.rightExpression)
            case .subquery(let collection, let variable, let predicate):
                type(NSExpression.ExpressionType.subquery.rawValue)
                coder.encode(ArchivedNode(collection), forKey: ArchiveKey.subqueryCollection)
                coder.encode(variable, forKey: ArchiveKey.variable)
                coder.encode(ArchivedNode(predicate), forKey: ArchiveKey.subpredicate)
            case .conditional(let predicate, let whenTrue, let whenFalse):
                type(NSExpression.ExpressionType.conditional.rawValue)
                coder.encode(ArchivedNode(predicate), forKey: ArchiveKey.predicate)
                coder.encode(ArchivedNode(whenTrue), forKey: ArchiveKey.trueExpression)
                coder.encode(ArchivedNode(whenFalse), forKey: ArchiveKey.falseExpression)
            case .anyKey:
                type(NSExpression.ExpressionType.anyKey.rawValue)
            case .symbol(let symbol):
                type(symbolicExpressionType)
                coder.encode(symbol.rawValue, forKey: ArchiveKey.token)
            case .block:
                throw .unarchivable("Can't archive a block expression (NSExpression(block:arguments:))")
            }
        }
    }

    /// Throws unless `name` is one of the functions the unarchiver accepts (Apple's table) with
    /// a number of arguments it takes, so that every archive written can be read; a subclass's
    /// stand-in call (Core Data's `FETCH`) is not one of them.
    static func checkFunction(_ name: String, _ arguments: [ExpressionNode]) throws(ArchivingError) {
        guard BuiltinFunctions.arity(of: name)?.contains(arguments.count) == true else {
            throw .unarchivable(
                "Can't archive the function \(name) with \(arguments.count) arguments", key: ArchiveKey.selectorName)
        }
    }

    /// Apple's private expression type of `FIRST`, `LAST` and `SIZE` (`NSSymbolicExpression`).
    static let symbolicExpressionType: UInt = 11

    // MARK: - Operators

    static func encode(_ predicateOperator: PredicateOperator, to coder: NSCoder) {
        write(to: coder) { () throws(ArchivingError) in
            coder.encode(Int(predicateOperator.operatorType.rawValue), forKey: ArchiveKey.operatorType)
            coder.encode(Int(predicateOperator.modifier.rawValue), forKey: ArchiveKey.modifier)
            if predicateOperator.operatorType == .customSelector {
                coder.encode(predicateOperator.customSelector ?? "", forKey: ArchiveKey.selectorName)
            } else {
                coder.encode(Int(predicateOperator.options.rawValue), forKey: predicateOperator.optionsKey)
            }
        }
    }

    // MARK: - Checking before writing

    /// Throws the first reason `node` cannot be archived (a block, an opaque predicate, an
    /// unsupported constant, too deep), without writing anything.
    static func check(_ node: PredicateNode) throws(ArchivingError) {
        // A tree n levels deep is n + 1 objects deep (the operator object hangs below a comparison).
        guard !node.isDeeper(than: ArchiveLimits.maxDepth - 1) else { throw .tooDeep(.encoding) }
        try node.onEnoughStack { Result { () throws(ArchivingError) in try Checker.check(node) } }.get()
    }

    /// Throws the first reason `node` cannot be archived, without writing anything.
    static func check(_ node: ExpressionNode) throws(ArchivingError) {
        guard !node.isDeeper(than: ArchiveLimits.maxDepth - 1) else { throw .tooDeep(.encoding) }
        try node.onEnoughStack { Result { () throws(ArchivingError) in try Checker.check(node) } }.get()
    }

    private enum Checker {
        static func check(_ node: PredicateNode) throws(ArchivingError) {
            switch node {
            case .constant: return
            case .comparison(let comparison):
                try check(comparison.left)
                try check(comparison.right)
            case .and(let children), .or(let children):
                for child in children { try check(child) }
            case .not(let child):
                try check(child)
            case .opaque(let opaque):
                throw unarchivable(opaque.predicate)
            }
        }

        static func check(_ node: ExpressionNode) throws(ArchivingError) {
            switch node {
            case .constant(let constant):
                try ArchivedConstant.check(constant.value)
            case .evaluatedObject, .variable, .keyPath, .anyKey, .symbol:
                return
            case .function(let name, let arguments):
                try checkFunction(name, arguments)
                for argument in arguments { try check(argument) }
            case .aggregate(let arguments):
                for argument in arguments { try check(argument) }
            case .customFunction(let receiver, _, let arguments):
                try check(receiver)
                for argument in arguments { try check(argument) }
            case .set(_, let left, let right):
                try check(left)
                try check(right)
            case .subquery(let collection, _, let predicate):
                try check(collection)
                try check(predicate)
            case .conditional(let predicate, let whenTrue, let whenFalse):
                try check(predicate)
                try check(whenTrue)
                try check(whenFalse)
            case .block:
                throw .unarchivable("Can't archive a block expression (NSExpression(block:arguments:))")
            }
        }
    }

    // MARK: - Reporting

    /// Runs `body` one level deeper and reports what it throws to `coder`.
    static func write(to coder: NSCoder, _ body: () throws(ArchivingError) -> Void) {
        do throws(ArchivingError) {
            guard coder.allowsKeyedCoding else {
                throw .unarchivable("NSPredicates and NSExpressions cannot be encoded by non-keyed archivers")
            }
            try ArchiveDepth.nested(.encoding, body)
        } catch {
            report(error, to: coder)
        }
    }

    /// Tells the archiver: an `NSKeyedArchiver` keeps the first error as its `error` (so the
    /// convenience `archivedData` throws it); any other coder gets `failWithError(_:)`.
    static func report(_ error: ArchivingError, to coder: NSCoder) {
        if let archiver = coder as? NSKeyedArchiver {
            if archiver.error == nil { archiver.error = error.nsError }
        } else {
            coder.failWithError(error.nsError)
        }
    }
}
