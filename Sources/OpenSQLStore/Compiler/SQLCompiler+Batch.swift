import OpenPredicate
import OpenStoreCore

/// A batch write's statement in two parts (`SQLCompiler.compileBatch`): the head,
/// `UPDATE ZEMPLOYEE AS t0 SET ZSALARY = (t0.ZSALARY + ?), Z_OPT = Z_OPT + 1` or
/// `DELETE FROM ZEMPLOYEE AS t0`, and the condition choosing the rows, over `t0`.
package struct SQLBatchStatement: Equatable {
    /// The table written.
    package let table: String
    package let head: String
    package let headArguments: [StoreValue]
    /// Nil: every row of the table.
    package let condition: String?
    package let conditionArguments: [StoreValue]

    /// The whole statement.
    package var query: SQLQuery {
        SQLQuery(
            sql: head + (condition.map { " WHERE " + $0 } ?? ""), arguments: headArguments + conditionArguments)
    }

    /// The same head over other rows.
    package func choosing(_ condition: String?, _ arguments: [StoreValue]) -> SQLBatchStatement {
        SQLBatchStatement(
            table: table, head: head, headArguments: headArguments, condition: condition, conditionArguments: arguments)
    }
}

extension SQLCompiler {
    /// What compiling a batch write gives.
    package enum BatchCompilation: Equatable {
        case compiled(SQLBatchStatement)
        /// The head compiled, the plan's predicate not yet (`SQLCompiler.Result.notCompilable`):
        /// the rows are found by running the plan, then written by key. The statement's
        /// condition is nil.
        case conditionNotCompilable(SQLBatchStatement, String)
        /// An update's value is an expression the dialect has no exact counterpart for (the
        /// in-memory engine computes it), and why: the rows are read and written one by one.
        case valuesNotCompilable(String)
        /// The write cannot run in a SQL store (a value read through a relationship or of the
        /// wrong type, a predicate Apple's SQL store refuses too), and why.
        case refused(String)
    }

    /// The statement of a batch write to the rows of `plan`.
    ///
    /// An update's values are bound constants or expressions of the row's own attributes
    /// (`salary * 1.1`, `lowercase:(name)`); a key path through a relationship is refused. The
    /// rows are chosen by the plan's `WHERE` conditions when the plan has no sorts, limit,
    /// offset or joins, and otherwise by key: `t0.Z_PK IN (SELECT … the plan's fetch …)`.
    package func compileBatch(_ action: BatchWrite.Action, plan: FetchPlan) -> BatchCompilation {
        var state = CompilerState(layout: layout, entityID: plan.entityID, dialect: dialect)
        let head: SQLBatchStatement
        do {
            head = try state.batchHead(action)
        } catch {
            return error.isUnsupported ? .refused(error.reason) : .valuesNotCompilable(error.reason)
        }
        do {
            let (condition, arguments) = try state.batchCondition(plan)
            return .compiled(head.choosing(condition, arguments))
        } catch {
            return error.isUnsupported ? .refused(error.reason) : .conditionNotCompilable(head, error.reason)
        }
    }
}

extension CompilerState {
    /// `UPDATE … SET …` or `DELETE FROM …` of the entity's table, aliased `t0`.
    mutating func batchHead(_ action: BatchWrite.Action) throws(NotCompilable) -> SQLBatchStatement {
        let table = layout.table(of: entityID)
        guard case .update(let assignments) = action else {
            return SQLBatchStatement(
                table: table.name, head: "DELETE FROM \(table.name) AS t0", headArguments: [], condition: nil,
                conditionArguments: [])
        }
        let entity = schema.entity(entityID)
        var sets: [String] = []
        for assignment in assignments {
            guard let slot = entity.slotsByName[assignment.property],
                case .attribute(let column, let kind) = layout.entities[entityID - 1].slots[slot]
            else {
                throw NotCompilable(unsupported: "\(assignment.property) is not a stored attribute of \(entity.name)")
            }
            // A value in Apple's external data layout is written as its column, kept in the row
            // whatever its size: a file several rows pointed to would go when one of them changed.
            let external = layout.keepsExternalData(entity: entityID, slot: slot)
            func stored(_ value: StoreValue) -> StoreValue {
                guard external, case .data(let data) = value else { return value }
                return .data(AppleExternalData.inlineColumn(data))
            }
            switch assignment.value {
            case .constant(let value):
                sets.append("\(column) = \(arguments.bind(stored(value)))")
            case .expression(let expression):
                // Refused before anything else, so that no store computes it (in SQL or in memory).
                guard !readsThroughRelationships(expression) else {
                    throw NotCompilable(
                        unsupported: "\(assignment.property) = \(expression): a batch update's expressions read the row's own "
                            + "attributes only, not through relationships")
                }
                let message = NSComparisonPredicate(
                    leftExpression: NSExpression(forKeyPath: assignment.property), rightExpression: expression,
                    modifier: .direct, type: .equalTo)
                switch try side(expression, in: message) {
                case .operand(.column(let sql, let valueKind)) where domain(valueKind) == domain(kind) && domain(kind) != nil:
                    guard !external else {
                        throw NotCompilable(
                            "\(assignment.property) = \(expression): an attribute in Apple's external data layout is "
                                + "written row by row")
                    }
                    sets.append("\(column) = \(sql)")
                case .operand(.constant(let constant)):
                    guard let value = storeValue(constant), value == .null || constantDomain(constant) == domain(kind) else {
                        throw NotCompilable(
                            unsupported: "\(assignment.property) = \(expression): a \(kind) attribute can't hold its value")
                    }
                    sets.append("\(column) = \(arguments.bind(stored(value.converted(to: kind))))")
                default:
                    throw NotCompilable(
                        unsupported: "\(assignment.property) = \(expression): a \(kind) attribute can't hold its value")
                }
            }
        }
        guard joinClauses.isEmpty else {
            throw NotCompilable(
                unsupported: "a batch update's expressions read the row's own attributes only, not through relationships")
        }
        sets.append("Z_OPT = Z_OPT + 1")
        let bound = arguments.values
        arguments = SQLArguments()
        return SQLBatchStatement(
            table: table.name, head: "UPDATE \(table.name) AS t0 SET " + sets.joined(separator: ", "), headArguments: bound,
            condition: nil, conditionArguments: [])
    }

    /// Whether `expression` reads a key path with more than one step, or a relationship.
    func readsThroughRelationships(_ expression: NSExpression) -> Bool {
        switch expression.expressionType {
        case .keyPath:
            let path = expression.keyPath
            guard !path.contains("."), let slot = schema.entity(entityID).slotsByName[path] else { return true }
            if case .attribute = schema.entity(entityID).properties[slot].kind { return false }
            return true
        case .function:
            let operand = expression.operand.expressionType == .constantValue ? [] : [expression.operand]
            return (operand + (expression.arguments ?? [])).contains(where: readsThroughRelationships)
        default:
            return false
        }
    }

    /// The condition choosing the rows of `plan`, over `t0`; nil for every row of the table.
    mutating func batchCondition(_ plan: FetchPlan) throws(NotCompilable) -> (String?, [StoreValue]) {
        let conditions = try filter(plan)
        if joinClauses.isEmpty && plan.sortDescriptors.isEmpty && plan.limit <= 0 && plan.offset <= 0 {
            guard !conditions.isEmpty else { return (nil, []) }
            return (conditions.map(\.sql).joined(separator: " AND "), conditions.flatMap(\.arguments.values))
        }
        // The rows as a fetch of their keys finds them (joins, order, window), by key.
        var keys = plan
        keys.output = .keys
        var fetch = CompilerState(layout: layout, entityID: entityID, dialect: dialect)
        let query = try fetch.query(keys)
        return ("t0.Z_PK IN (SELECT k.Z_PK FROM (\(query.sql)) AS k)", query.arguments)
    }
}
