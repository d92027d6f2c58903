// `import CoreData` on Linux: everything OpenCoreData declares, and Foundation with it, as Apple's
// CoreData module re-exports Foundation.
@_exported import OpenCoreData
// swift-corelibs-foundation declares unusable classes named like these. A scoped re-export makes
// a client file's lookup of these names prefer ours, also in files that `import Foundation` and
// `import XCTest` beside `import CoreData` (measured with Swift 6.3.1 and corelibs' Foundation).
// A file that imports only Foundation sees corelibs' classes: add `import CoreData` to it.
@_exported import class OpenPredicate.NSComparisonPredicate
@_exported import class OpenPredicate.NSCompoundPredicate
@_exported import class OpenPredicate.NSExpression
@_exported import class OpenPredicate.NSPredicate
@_exported import class OpenPredicate.NSSortDescriptor
