import OpenCoreData

/// A dictionary-result column computed by a function of one key path, e.g.
/// `aggregate("total", "sum:", "salary", .decimalAttributeType)`.
func aggregate(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType) -> NSExpressionDescription {
    let description = NSExpressionDescription()
    description.name = name
    description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
    description.expressionResultType = type
    return description
}
