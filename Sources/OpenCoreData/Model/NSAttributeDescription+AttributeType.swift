import OpenPredicate

extension NSAttributeDescription {
    /// The type of an attribute's value, the Swift form Apple added in iOS 15 / macOS 12
    /// beside `NSAttributeType`: `.string`, `.integer64`, `.date`, ….
    ///
    /// ```swift
    /// let title = NSAttributeDescription()
    /// title.type = .string
    /// title.attributeType  // .stringAttributeType
    /// ```
    ///
    /// See [NSAttributeDescription.AttributeType](https://developer.apple.com/documentation/coredata/nsattributedescription/attributetype-swift.struct).
    public struct AttributeType: Hashable, Sendable {
        /// The `NSAttributeType` this type stands for.
        public let rawValue: NSAttributeType

        /// The type that stands for an `NSAttributeType`.
        ///
        /// - Parameter rawValue: An attribute type.
        public init(_ rawValue: NSAttributeType) {
            self.rawValue = rawValue
        }

        /// No type yet (`.undefinedAttributeType`).
        public static let undefined = AttributeType(.undefinedAttributeType)
        /// A 16-bit signed integer (`.integer16AttributeType`).
        public static let integer16 = AttributeType(.integer16AttributeType)
        /// A 32-bit signed integer (`.integer32AttributeType`).
        public static let integer32 = AttributeType(.integer32AttributeType)
        /// A 64-bit signed integer (`.integer64AttributeType`).
        public static let integer64 = AttributeType(.integer64AttributeType)
        /// A decimal number (`.decimalAttributeType`).
        public static let decimal = AttributeType(.decimalAttributeType)
        /// A double-precision floating-point number (`.doubleAttributeType`).
        public static let double = AttributeType(.doubleAttributeType)
        /// A single-precision floating-point number (`.floatAttributeType`).
        public static let float = AttributeType(.floatAttributeType)
        /// A string (`.stringAttributeType`).
        public static let string = AttributeType(.stringAttributeType)
        /// A Boolean (`.booleanAttributeType`).
        public static let boolean = AttributeType(.booleanAttributeType)
        /// A date (`.dateAttributeType`).
        public static let date = AttributeType(.dateAttributeType)
        /// Binary data (`.binaryDataAttributeType`).
        public static let binaryData = AttributeType(.binaryDataAttributeType)
        /// A UUID (`.UUIDAttributeType`).
        public static let uuid = AttributeType(.UUIDAttributeType)
        /// A URL (`.URIAttributeType`).
        public static let uri = AttributeType(.URIAttributeType)
        /// A value stored through a value transformer (`.transformableAttributeType`).
        public static let transformable = AttributeType(.transformableAttributeType)
        /// A managed object ID (`.objectIDAttributeType`).
        public static let objectID = AttributeType(.objectIDAttributeType)
        /// A composite of named sub-attributes (`.compositeAttributeType`; Apple: iOS 17).
        public static let composite = AttributeType(.compositeAttributeType)
    }

    /// The attribute's type, as `attributeType` in its Swift form. **Default:** `.undefined`.
    ///
    /// Setting it sets `attributeType` (and stops the process, as that does, once the model is
    /// in use).
    /// See [type](https://developer.apple.com/documentation/coredata/nsattributedescription/type).
    public var type: AttributeType {
        get { AttributeType(attributeType) }
        set { attributeType = newValue.rawValue }
    }
}

extension NSExpressionDescription {
    /// The type of the expression's result, as `expressionResultType` in its Swift form.
    /// **Default:** `.undefined`.
    ///
    /// See [resultType](https://developer.apple.com/documentation/coredata/nsexpressiondescription/resulttype).
    public var resultType: NSAttributeDescription.AttributeType {
        get { NSAttributeDescription.AttributeType(expressionResultType) }
        set { expressionResultType = newValue.rawValue }
    }
}
