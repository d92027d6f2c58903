import OpenPredicate

/// The type of an attribute's value, with Apple's raw values (they are stored in compiled
/// models and archives).
///
/// See [NSAttributeType](https://developer.apple.com/documentation/coredata/nsattributetype).
public enum NSAttributeType: UInt, Sendable {
    /// No type yet (a new attribute, or an expression description whose result type is unknown).
    case undefinedAttributeType = 0
    /// A 16-bit signed integer (`Int16`; the model editor's "Integer 16").
    case integer16AttributeType = 100
    /// A 32-bit signed integer (`Int32`; "Integer 32").
    case integer32AttributeType = 200
    /// A 64-bit signed integer (`Int64`; "Integer 64").
    case integer64AttributeType = 300
    /// A decimal number (`Decimal`; "Decimal").
    case decimalAttributeType = 400
    /// A double-precision floating-point number (`Double`; "Double").
    case doubleAttributeType = 500
    /// A single-precision floating-point number (`Float`; "Float").
    case floatAttributeType = 600
    /// A string (`String`; "String").
    case stringAttributeType = 700
    /// A Boolean (`Bool`; "Boolean").
    case booleanAttributeType = 800
    /// A date (`Date`; "Date").
    case dateAttributeType = 900
    /// Binary data (`Data`; "Binary").
    case binaryDataAttributeType = 1000
    /// A UUID (`UUID`; "UUID").
    case UUIDAttributeType = 1100
    /// A URL (`URL`; "URI").
    case URIAttributeType = 1200
    /// A value stored through a value transformer ("Transformable").
    case transformableAttributeType = 1800
    /// A managed object ID ("ObjectID").
    case objectIDAttributeType = 2000
    /// A composite of named sub-attributes ("Composite").
    case compositeAttributeType = 2100
}

extension NSAttributeType {
    /// The class name Apple reports as `attributeValueClassName` for attributes of this type
    /// (`nil` for transformable, undefined and composite attributes).
    var defaultValueClassName: String? {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
            .floatAttributeType, .booleanAttributeType:
            return "NSNumber"
        case .decimalAttributeType: return "NSDecimalNumber"
        case .stringAttributeType: return "NSString"
        case .dateAttributeType: return "NSDate"
        case .binaryDataAttributeType: return "NSData"
        case .UUIDAttributeType: return "NSUUID"
        case .URIAttributeType: return "NSURL"
        case .objectIDAttributeType: return "NSManagedObjectID"
        case .undefinedAttributeType, .transformableAttributeType, .compositeAttributeType: return nil
        }
    }

    /// The name the model editor shows and writes into `contents` files ("Integer 16", "URI", …).
    package var modelFileName: String {
        switch self {
        case .undefinedAttributeType: return "Undefined"
        case .integer16AttributeType: return "Integer 16"
        case .integer32AttributeType: return "Integer 32"
        case .integer64AttributeType: return "Integer 64"
        case .decimalAttributeType: return "Decimal"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .stringAttributeType: return "String"
        case .booleanAttributeType: return "Boolean"
        case .dateAttributeType: return "Date"
        case .binaryDataAttributeType: return "Binary"
        case .UUIDAttributeType: return "UUID"
        case .URIAttributeType: return "URI"
        case .transformableAttributeType: return "Transformable"
        case .objectIDAttributeType: return "ObjectID"
        case .compositeAttributeType: return "Composite"
        }
    }

    /// Every type, in raw-value order.
    static let allTypes: [NSAttributeType] = [
        .undefinedAttributeType, .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
        .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .stringAttributeType, .booleanAttributeType,
        .dateAttributeType, .binaryDataAttributeType, .UUIDAttributeType, .URIAttributeType,
        .transformableAttributeType, .objectIDAttributeType, .compositeAttributeType,
    ]

    /// The type a model file names (`attributeType="Integer 16"`), or nil for an unknown name.
    init?(modelFileName: String) {
        guard let type = Self.allTypes.first(where: { $0.modelFileName == modelFileName }) else { return nil }
        self = type
    }
}
