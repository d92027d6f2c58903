@_exported import Foundation

/// A logical condition to filter objects, in memory or in a fetch request.
///
/// This is swift-corelibs-foundation's own class, which OpenPredicate completes:
/// `NSPredicate(format:)` and the other initializers below return our subclasses, which parse,
/// print, evaluate and compare the way Apple's do.
///
/// **Differences from Apple:** see `NSPredicate(format:_:)`. Declaring our own class under this
/// name would make `let p: NSPredicate` ambiguous in a file that imports both Foundation and
/// CoreData, so the name stays Foundation's and the behaviour lives in subclasses.
public typealias NSPredicate = Foundation.NSPredicate

/// A predicate that combines others with AND, OR or NOT.
///
/// This is swift-corelibs-foundation's class. Predicates parsed from a format string use an
/// OpenPredicate subclass of it. One created with its own initializers
/// (`NSCompoundPredicate(andPredicateWithSubpredicates:)`) evaluates correctly and works
/// everywhere OpenPredicate takes a predicate (filtering, fetch requests, and as a
/// subpredicate, where it prints correctly).
///
/// **Differences from Apple:** on an instance created with corelibs' initializers, corelibs'
/// own `predicateFormat`, `isEqual(_:)` and `copy()` answer (`FALSEPREDICATE`, identity-like
/// equality, a copy that is not a compound). Build compound predicates with
/// `NSPredicate(format:)`, or use `NSCompoundPredicate.and(_:)`/`.or(_:)`/`.not(_:)`, to get
/// Apple's behaviour for those three as well.
public typealias NSCompoundPredicate = Foundation.NSCompoundPredicate

/// How to order objects by a key, as in `NSFetchRequest.sortDescriptors`.
///
/// This is swift-corelibs-foundation's class; `NSSortDescriptor(key:ascending:)` and its
/// siblings return an OpenPredicate subclass that reads keys by key-value coding.
public typealias NSSortDescriptor = Foundation.NSSortDescriptor
