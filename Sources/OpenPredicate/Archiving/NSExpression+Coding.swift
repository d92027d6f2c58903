import Foundation

/// Expressions archive with `NSKeyedArchiver` (secure coding): `supportsSecureCoding`,
/// `encode(with:)` and `init?(coder:)` are in the class body (`NSExpression.swift`), because the
/// class is open and `init?(coder:)` must therefore be `required`. The keys are listed in
/// `ArchiveKey`, the writing in `PredicateArchiver`, the reading in `PredicateUnarchiver`.
extension NSExpression: NSSecureCoding {}
