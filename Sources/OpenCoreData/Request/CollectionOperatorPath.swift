/// A key path that crosses a to-many relationship and ends in a collection operator, as a
/// dictionary fetch may select it (`propertiesToFetch`): `employees.@count`,
/// `employees.name.@count`, `employees.@sum.salary` (also `@min`, `@max`, `@avg`), after any
/// number of to-one steps (`department.employees.@count`).
///
/// Each fetched object gives the operator's value over its members; in a fetch with
/// `propertiesToGroupBy` the column is an aggregate over the group's objects (`groupAggregate`):
/// the count or sum of all their members, the least or greatest of their values. Apple does not
/// document this case; that is what one would compute over the group's members in one list.
/// `@avg` has no such aggregate from per-object values, so it is refused in a grouped fetch.
/// `relationship.attribute.@count` counts the members, like `relationship.@count`.
struct CollectionOperatorPath {
    enum Operator: String {
        case count = "@count", sum = "@sum", min = "@min", max = "@max", avg = "@avg"
    }

    /// The path to the to-many relationship (`employees`, `department.employees`).
    let relationshipPath: String
    let op: Operator
    /// The attribute the operator reads (nil for `@count`).
    let attribute: NSAttributeDescription?

    /// The path's parts, when it has one of the forms above from `entity`.
    init?(_ path: String, from entity: NSEntityDescription?) {
        guard path.contains("@"), var current = entity else { return nil }
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        var relationship: NSRelationshipDescription?
        while index < components.count {
            guard let found = current.relationshipsByName[components[index]], let destination = found.destinationEntity else {
                return nil
            }
            index += 1
            current = destination
            if found.isToMany {
                relationship = found
                break
            }
        }
        guard relationship != nil else { return nil }
        let rest = Array(components[index...])
        relationshipPath = components[..<index].joined(separator: ".")
        switch rest.count {
        case 1 where rest[0] == Operator.count.rawValue:
            op = .count
            attribute = nil
        case 2 where rest[1] == Operator.count.rawValue && current.attributesByName[rest[0]] != nil:
            op = .count
            attribute = nil
        case 2:
            guard let op = Operator(rawValue: rest[0]), op != .count, let attribute = current.attributesByName[rest[1]] else {
                return nil
            }
            self.op = op
            self.attribute = attribute
        default:
            return nil
        }
    }

    /// The type of the operator's value: a 64-bit integer for `@count`, a double for `@avg`, the
    /// attribute's type otherwise.
    var resultType: NSAttributeType {
        switch op {
        case .count: .integer64AttributeType
        case .avg: .doubleAttributeType
        case .sum, .min, .max: attribute?.attributeType ?? .undefinedAttributeType
        }
    }

    /// The operator's value for each object (`employees.@count`, `employees.@sum.salary`).
    var perObjectExpression: NSExpression {
        guard let attribute else { return NSExpression(forKeyPath: "\(relationshipPath).@count") }
        return NSExpression(forKeyPath: "\(relationshipPath).\(op.rawValue).\(attribute.name)")
    }

    /// The aggregate over a group's objects: `sum:` of their counts or sums, `min:`/`max:` of
    /// their least or greatest values; nil for `@avg`.
    var groupAggregate: NSExpression? {
        let function: String
        switch op {
        case .count, .sum: function = "sum:"
        case .min: function = "min:"
        case .max: function = "max:"
        case .avg: return nil
        }
        return NSExpression(forFunction: function, arguments: [perObjectExpression])
    }
}
