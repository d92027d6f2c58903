// OpenPredicate completes Foundation rather than replacing it, so Foundation comes with it.
//
// `NSPredicate`, `NSCompoundPredicate`, `NSComparisonPredicate`, `NSExpression` and
// `NSSortDescriptor` are OpenPredicate's own classes (`NSPredicate` and `NSSortDescriptor`
// subclass corelibs' classes of the same names, so they pass wherever corelibs takes those).
// corelibs declares classes with all these names; a module that imports both sees two classes
// per name, and the modules of this package, like the `CoreData` module for its clients,
// re-export ours by name (`@_exported import class OpenPredicate.NSPredicate`), which makes the
// name mean ours even where Foundation is imported too.
@_exported import Foundation

/// An implementation detail that lets `NSPredicate(format:)` return the subclass the string calls
/// for (`NSComparisonPredicate`, `NSCompoundPredicate`), as Apple's does, and
/// `ValueTransformer(forName:)` return the registered instance; do not conform your own types or
/// rely on it.
///
/// A convenience initializer in a class extension must end in `self.init(…)` of that very class;
/// an initializer in a constrained extension of a protocol (`where Self == NSPredicate`) may
/// assign `self`, so it can return a subclass. Overload resolution prefers it to the class's own
/// `init(format:_:)`, which is marked as disfavored and serves `self.init(format:)` in
/// convenience initializers of extensions.
public protocol _FoundationFactory {}
