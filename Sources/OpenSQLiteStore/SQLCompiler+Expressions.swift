import OpenPredicate
import OpenStoreCore

/// Comparisons of two key paths (`age == salary`, `department.title ==[c] name`,
/// `department == self`), with the in-memory engine's rules (`ValueSemantics`):
///
/// - values of one domain compare as they do with a constant: `==` is `IS` (two NULLs are
///   equal, NULL and a value are not), ordering with NULL is false, `[c]`/`[d]` fold strings;
/// - values of different domains (a number and a string, an object and a number) are never
///   equal and never ordered, but two nils are equal: `==` is `(a IS NULL AND b IS NULL)`;
/// - objects are equal when they are the same row (primary key and entity), or both nil; they
///   have no order;
/// - `a CONTAINS b` and `b IN a` of two strings test a substring; of other values they are false.
extension CompilerState {
    mutating func compareKeyPaths(
        _ left: Operand, _ operatorType: NSComparisonPredicate.Operator, _ right: Operand,
        options: NSComparisonPredicate.Options, pending: [StoreValue], exact: Bool, in predicate: NSComparisonPredicate
    ) throws(NotCompilable) -> String {
        let flags = options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
        let equal = operatorType == .equalTo
        switch (left, right) {
        case (.column(let a, let aKind), .column(let b, let bKind)):
            guard let aDomain = domain(aKind), let bDomain = domain(bKind) else {
                throw NotCompilable("\(predicate): \(aKind) and \(bKind) values are compared in memory only")
            }
            let folds = aDomain == .string && bDomain == .string && flags != 0
            let l = folds ? "ocd_fold(\(a), \(flags))" : a
            let r = folds ? "ocd_fold(\(b), \(flags))" : b
            switch operatorType {
            case .equalTo, .notEqualTo:
                guard aDomain == bDomain else { return bothNil(a, b, pending: pending, equal: equal) }
                _ = arguments.bind(pending)
                return "\(l) \(equal ? "IS" : "IS NOT") \(r)"
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
                guard aDomain == bDomain, let symbol = Self.symbols[operatorType] else { return "0" }
                _ = arguments.bind(pending)
                return twoValued("\(l) \(symbol) \(r)", exact: exact)
            case .contains, .in:
                guard aDomain == .string, bDomain == .string, pending.isEmpty else { return "0" }
                let (container, element) = operatorType == .contains ? (a, b) : (b, a)
                return "ocd_contains(\(container), \(element), \(flags))"
            default:
                throw NotCompilable("\(predicate): this operator between two key paths is compared in memory only")
            }
        case (.object(let a, let aEntity, let aFamily), .object(let b, let bEntity, let bFamily)):
            switch operatorType {
            case .equalTo, .notEqualTo:
                guard !aFamily.isDisjoint(with: bFamily) else { return bothNil(a, b, pending: [], equal: equal) }
                let sameEntity =
                    "\(try entity(aEntity, aFamily, in: predicate)) IS \(try entity(bEntity, bFamily, in: predicate))"
                let test = "(\(a) IS \(b) AND (\(a) IS NULL OR \(sameEntity)))"
                return equal ? test : "NOT " + test
            case .in, .contains, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between:
                return "0"
            default:
                throw NotCompilable("\(predicate): objects are compared with == and != only")
            }
        case (.column(let a, _), .object(let b, _, _)), (.object(let a, _, _), .column(let b, _)):
            switch operatorType {
            case .equalTo, .notEqualTo: return bothNil(a, b, pending: pending, equal: equal)
            case .in, .contains, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between: return "0"
            default: throw NotCompilable("\(predicate): this operator between two key paths is compared in memory only")
            }
        default:
            throw NotCompilable("\(predicate): not two key paths")
        }
    }

    /// `a == b` of values that are never equal unless both are nil (or `!=`, its negation).
    mutating func bothNil(_ a: String, _ b: String, pending: [StoreValue], equal: Bool) -> String {
        let first = "\(a) IS \(equal ? "NULL" : "NOT NULL")"
        _ = arguments.bind(pending)
        return equal ? "(\(first) AND \(b) IS NULL)" : "(\(first) OR \(b) IS NOT NULL)"
    }

    /// The `Z_ENT` of an object operand: its column, or the number of its one possible entity.
    mutating func entity(_ column: String?, _ family: Set<Int>, in predicate: NSComparisonPredicate) throws(NotCompilable)
        -> String
    {
        if let column { return column }
        guard family.count == 1, let only = family.first else {
            throw NotCompilable("\(predicate): the entity of a relationship's destination is unknown")
        }
        return arguments.bind(.integer(Int64(layout.entityNumber(of: only))))
    }
}
