// The Apple-shaped Core Data classes build on the predicate language; re-exporting it means
// `import OpenCoreData` (or `import CoreData`) brings NSPredicate, NSExpression and NSSortDescriptor.
@_exported import OpenPredicate
// swift-corelibs-foundation declares classes of these names too. A scoped import makes the name
// mean OpenPredicate's class in this module and in every file that imports this one, also where
// `Foundation` is imported as well (an unscoped import of two modules with the same class name
// would leave it ambiguous).
@_exported import class OpenPredicate.NSComparisonPredicate
@_exported import class OpenPredicate.NSCompoundPredicate
@_exported import class OpenPredicate.NSExpression
@_exported import class OpenPredicate.NSPredicate
@_exported import class OpenPredicate.NSSortDescriptor
