// The predicate classes by their Apple names: OpenPredicate's, not corelibs'.
@_exported import class OpenPredicate.NSComparisonPredicate
@_exported import class OpenPredicate.NSCompoundPredicate
@_exported import class OpenPredicate.NSExpression
@_exported import class OpenPredicate.NSPredicate
@_exported import class OpenPredicate.NSSortDescriptor
