// OpenPredicate completes Foundation rather than replacing it, so Foundation comes with it.
//
// `NSPredicate`, `NSCompoundPredicate` and `NSSortDescriptor` are swift-corelibs-foundation's own
// classes: OpenPredicate adds the missing initializers (`NSPredicate(format:)`,
// `NSSortDescriptor(key:ascending:)`, …), which return subclasses that parse, print, evaluate
// and compare the way Apple's do. Declaring classes of our own under those names would make
// `let p: NSPredicate` ambiguous in any file that imports both Foundation and CoreData; even a
// typealias to Foundation's class breaks `(NSPredicate).self`, which Swift Testing's `#expect(x is
// NSPredicate)` expands to. So the names are simply Foundation's.
//
// `NSExpression` and `NSComparisonPredicate` are our own classes: corelibs' versions can never
// be created (their only initializers are unavailable and trap).
@_exported import Foundation

/// An implementation detail that lets OpenPredicate add initializers to Foundation's classes
/// that return subclasses (`NSPredicate(format:)`, `NSSortDescriptor(key:ascending:)`); do not
/// conform your own types or rely on it.
///
/// A convenience initializer in a class extension must end in `self.init(…)` of that very class;
/// an initializer in a constrained extension of a protocol (`where Self == NSPredicate`) may
/// assign `self`, so it can return a subclass. Overload resolution prefers these to corelibs'
/// unavailable initializers of the same names.
public protocol _FoundationFactory {}
