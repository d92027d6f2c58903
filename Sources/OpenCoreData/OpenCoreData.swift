// The Apple-shaped Core Data classes build on the predicate language; re-exporting it means
// `import OpenCoreData` (or `import CoreData`) brings NSPredicate, NSExpression and NSSortDescriptor.
@_exported import OpenPredicate
