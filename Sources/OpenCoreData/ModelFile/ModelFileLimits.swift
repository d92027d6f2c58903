/// Every limit the model file loader sets on its input, and why. A file past one is refused
/// with an error naming the file and the line, never a crash or a hang.
///
/// Name rules (characters, case, length, reserved names) are in `ModelNames`; the size of a
/// derivation expression checked against its entity is `DerivationCheck.maximumParts`.
enum ModelFileLimits {
    /// The deepest nesting of elements, `<model>` counted as 1. Xcode writes at most 5 levels
    /// (`model > entity > uniquenessConstraints > uniquenessConstraint > constraint`), so 256
    /// is generous; it bounds the element tree, which is built and torn down by recursion
    /// (a tree 50,000 levels deep overflowed the stack).
    static let maximumDepth = 256
}
