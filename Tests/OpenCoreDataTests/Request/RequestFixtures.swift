@testable import OpenCoreData
import TestSupport
import Testing

/// The company model (see `CompanyModel`) with one transient attribute, `Department.draft`,
/// and helpers that read a request's settings as text.
enum RequestFixtures {
    static func model() -> NSManagedObjectModel {
        let model = CompanyModel.make()
        let department = model[entity: "Department"]
        let draft = attribute("draft", .stringAttributeType)
        draft.isTransient = true
        department.properties = department.properties + [draft]
        return model
    }

    /// A request for `entityName` whose `entity` is the model's entity of that name.
    static func request(_ entityName: String, in model: NSManagedObjectModel) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = model[entity: entityName]
        return request
    }

    /// Every setting of `request`, as text, by name.
    static func settings<T>(of request: NSFetchRequest<T>) -> [String: String] {
        func text(_ list: [Any]?) -> String {
            list.map { "[" + $0.map(describe).joined(separator: ", ") + "]" } ?? "nil"
        }
        return [
            "entity": request.entity?.name ?? "nil",
            "entityName": request.entityName ?? "nil",
            "predicate": request.predicate?.description ?? "nil",
            "sortDescriptors": text(request.sortDescriptors),
            "fetchLimit": "\(request.fetchLimit)",
            "fetchOffset": "\(request.fetchOffset)",
            "fetchBatchSize": "\(request.fetchBatchSize)",
            "affectedStores": request.affectedStores.map { "\($0.count) stores" } ?? "nil",
            "resultType": "\(request.resultType.rawValue)",
            "includesSubentities": "\(request.includesSubentities)",
            "includesPendingChanges": "\(request.includesPendingChanges)",
            "includesPropertyValues": "\(request.includesPropertyValues)",
            "returnsObjectsAsFaults": "\(request.returnsObjectsAsFaults)",
            "propertiesToFetch": text(request.propertiesToFetch),
            "propertiesToGroupBy": text(request.propertiesToGroupBy),
            "havingPredicate": request.havingPredicate?.description ?? "nil",
            "returnsDistinctResults": "\(request.returnsDistinctResults)",
            "relationshipKeyPathsForPrefetching": text(request.relationshipKeyPathsForPrefetching),
            "shouldRefreshRefetchedObjects": "\(request.shouldRefreshRefetchedObjects)",
        ]
    }

    /// A name for a property list element: strings as themselves, property descriptions as
    /// `Kind:name`, expression descriptions with their expression.
    static func describe(_ element: Any) -> String {
        switch element {
        case let string as String: return string
        case let expression as NSExpressionDescription:
            return "Expression:\(expression.name)=\(expression.expression?.description ?? "nil")"
        case let attribute as NSAttributeDescription: return "Attribute:\(attribute.name)"
        case let relationship as NSRelationshipDescription: return "Relationship:\(relationship.name)"
        case let property as NSPropertyDescription: return "Property:\(property.name)"
        default: return "\(element)"
        }
    }

    /// The standard error of an exit test, as text.
    static func standardError(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }
}
