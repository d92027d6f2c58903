import OpenPredicate
import OpenStoreCore

extension AppleSQLLayout {
    /// The `WHERE` clause of a partial fetch index (`partialIndexPredicate`), in SQL with its
    /// constants written out: an index takes no bound parameters, and its condition must mean
    /// the same thing to every program that opens the file.
    ///
    /// ```swift
    /// layout.indexCondition(NSPredicate(format: "age >= 18 AND nickname != nil"), entity: personID)
    /// // "(ZAGE >= 18 AND ZNICKNAME IS NOT NULL)"
    /// ```
    ///
    /// What is written: comparisons `== != < <= > >=` of one of the entity's attributes (or to-one
    /// keys) with a constant, either side; `== nil` and `!= nil` as `IS NULL` and `IS NOT NULL`;
    /// `IN` a collection of constants; `BETWEEN`; `AND`, `OR`, `NOT`, `TRUEPREDICATE` and
    /// `FALSEPREDICATE`. Constants are numbers, Booleans (1 and 0), strings (quoted), dates
    /// (seconds since 2001, as the columns hold them), UUIDs and data (blob literals).
    ///
    /// Anything else — key paths through relationships, string options (`[c]`, `[d]`), string
    /// operators, functions, variables — gives nil: the index is then not built, rather than
    /// built over the wrong rows (an index is only ever a shortcut: fetches give the same answers
    /// without it).
    package func indexCondition(_ predicate: NSPredicate, entity entityID: Int) -> String? {
        if let comparison = predicate as? NSComparisonPredicate {
            return indexComparison(comparison, entity: entityID)
        }
        if let compound = predicate as? NSCompoundPredicate {
            var parts: [String] = []
            for subpredicate in compound.predicates {
                guard let part = indexCondition(subpredicate, entity: entityID) else { return nil }
                parts.append(part)
            }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? "1" : "(" + parts.joined(separator: " AND ") + ")"
            case .or: return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"
            case .not: return parts.count == 1 ? "NOT (" + parts[0] + ")" : nil
            @unknown default: return nil
            }
        }
        if predicate.isEqual(NSPredicate(value: true)) { return "1" }
        if predicate.isEqual(NSPredicate(value: false)) { return "0" }
        return nil
    }

    private func indexComparison(_ comparison: NSComparisonPredicate, entity entityID: Int) -> String? {
        guard comparison.comparisonPredicateModifier == .direct, comparison.options.isEmpty else { return nil }
        var operatorType = comparison.predicateOperatorType
        var column = indexColumn(comparison.leftExpression, entity: entityID)
        var constant = comparison.rightExpression
        if column == nil,
            [.lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo]
                .contains(operatorType)
        {
            // `18 <= age` is `age >= 18`.
            column = indexColumn(comparison.rightExpression, entity: entityID)
            constant = comparison.leftExpression
            switch operatorType {
            case .lessThan: operatorType = .greaterThan
            case .lessThanOrEqualTo: operatorType = .greaterThanOrEqualTo
            case .greaterThan: operatorType = .lessThan
            case .greaterThanOrEqualTo: operatorType = .lessThanOrEqualTo
            default: break
            }
        }
        guard let column else { return nil }
        let value: Any?
        switch constant.expressionType {
        case .constantValue: value = constant.constantValue
        case .aggregate where operatorType == .in || operatorType == .between: value = constant.collection
        default: return nil
        }
        switch operatorType {
        case .equalTo, .notEqualTo:
            if value == nil || value is NSNull { return "\(column) \(operatorType == .equalTo ? "IS NULL" : "IS NOT NULL")" }
            return Self.literal(value).map { "\(column) \(operatorType == .equalTo ? "=" : "!=") \($0)" }
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let symbol = [
                NSComparisonPredicate.Operator.lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">",
                .greaterThanOrEqualTo: ">=",
            ][operatorType]
            guard let symbol, let literal = Self.literal(value) else { return nil }
            return "\(column) \(symbol) \(literal)"
        case .in:
            guard let members = Self.members(value), !members.isEmpty else { return nil }
            let literals = members.compactMap(Self.literal)
            guard literals.count == members.count else { return nil }
            return "\(column) IN (\(literals.joined(separator: ", ")))"
        case .between:
            guard let bounds = Self.members(value), bounds.count == 2, let low = Self.literal(bounds[0]),
                let high = Self.literal(bounds[1])
            else { return nil }
            return "\(column) BETWEEN \(low) AND \(high)"
        default:
            return nil
        }
    }

    /// The column of a key path naming one of the entity's attributes or to-one relationships.
    private func indexColumn(_ expression: NSExpression, entity entityID: Int) -> String? {
        guard expression.expressionType == .keyPath, entities.indices.contains(entityID - 1) else { return nil }
        let path = expression.keyPath
        guard !path.contains("."), let slot = schema.entity(entityID).slotsByName[path] else { return nil }
        switch entities[entityID - 1].slots[slot] {
        case .attribute(let column, _), .toOne(let column, _, _): return column
        default: return nil
        }
    }

    /// The elements of an `IN` or `BETWEEN` right side: an aggregate of constants or a
    /// collection constant.
    private static func members(_ value: Any?) -> [Any?]? {
        switch value {
        case let expressions as [NSExpression]:
            var values: [Any?] = []
            for expression in expressions {
                guard expression.expressionType == .constantValue else { return nil }
                values.append(expression.constantValue)
            }
            return values
        case let array as [Any?]: return array
        case let array as NSArray: return array.map { $0 }
        case let set as Set<AnyHashable>: return set.sorted { "\($0)" < "\($1)" }
        default: return nil
        }
    }

    /// A constant as an SQL literal; nil for values with no literal (objects, collections,
    /// infinities).
    static func literal(_ value: Any?) -> String? {
        switch value {
        case nil, is NSNull: return "NULL"
        case let string as String: return "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case let string as NSString: return literal(string._bridgeToSwift())
        case let flag as Bool: return flag ? "1" : "0"
        case let integer as any BinaryInteger: return "\(integer)"
        case let double as Double: return double.isFinite ? "\(double)" : nil
        case let float as Float: return float.isFinite ? "\(Double(float))" : nil
        case let decimal as Decimal: return decimal.isFinite ? "\(decimal)" : nil
        case let date as Date: return "\(date.timeIntervalSinceReferenceDate)"
        case let uuid as UUID: return withUnsafeBytes(of: uuid.uuid) { "X'" + $0.map(hexByte).joined() + "'" }
        case let data as Data: return "X'" + data.map(hexByte).joined() + "'"
        case let number as NSNumber:
            let text = number.stringValue
            return Double(text)?.isFinite == true ? text : nil
        default: return nil
        }
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
