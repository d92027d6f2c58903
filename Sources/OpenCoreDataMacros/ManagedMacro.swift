import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Managed var name: String?` → accessors that read and write the managed value named
/// `name` (or the key given as the macro's argument) through the object.
///
/// The property becomes computed, so it may be declared in an extension too (Xcode's
/// `+CoreDataProperties.swift` files declare Apple's `@NSManaged` properties there), and the
/// key is spelled out at compile time.
public struct ManagedMacro: AccessorMacro, PeerMacro {
    /// The `get` and `set` of the property `declaration`, or a diagnostic (and no accessors)
    /// when it is not a `var` with a type and no initial value.
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
            let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
            binding.typeAnnotation != nil, binding.accessorBlock == nil
        else {
            context.diagnose(
                Diagnostic(
                    node: Syntax(node),
                    message: ManagedMessage(
                        "@Managed applies to one stored property with a type: @Managed var name: String?")))
            return []
        }
        if variable.bindingSpecifier.tokenKind != .keyword(.var) {
            context.diagnose(
                Diagnostic(node: Syntax(variable.bindingSpecifier), message: ManagedMessage("@Managed properties are 'var'")))
            return []
        }
        if let initializer = binding.initializer {
            context.diagnose(
                Diagnostic(
                    node: Syntax(initializer),
                    message: ManagedMessage(
                        "@Managed properties have no initial value: give the attribute a default value in the model")))
            return []
        }
        let key: String
        if let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression
            .as(StringLiteralExprSyntax.self),
            argument.segments.count == 1,
            let segment = argument.segments.first?.as(StringSegmentSyntax.self)
        {
            key = segment.content.text
        } else if node.arguments != nil {
            context.diagnose(
                Diagnostic(node: Syntax(node), message: ManagedMessage("@Managed's key is a string literal: @Managed(\"title\")"))
            )
            return []
        } else {
            key = identifier.text.filter { $0 != "`" }
        }
        let literal = StringLiteralExprSyntax(content: key)
        return [
            "get { _managedValue(forKey: \(literal)) }",
            "set { _setManagedValue(newValue, forKey: \(literal)) }",
        ]
    }
}

extension ManagedMacro {
    /// In a class's body (not an extension), a stored marker of no size beside the property:
    /// `private final var _managed_name = _ManagedPropertyMarker()` (final: no accessors in the
    /// vtable). A class's settable properties then
    /// pair up one to one, in declaration order, with its stored `var`s, which is how a key path
    /// to a plain `var` of the class is named (`KeyPathLayout`).
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard context.lexicalContext.first?.is(ClassDeclSyntax.self) == true,
            let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
            let identifier = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier
        else { return [] }
        let name = identifier.text.filter { $0 != "`" }
        return ["private final var _managed_\(raw: name) = _ManagedPropertyMarker()"]
    }
}

private struct ManagedMessage: DiagnosticMessage {
    let message: String
    init(_ message: String) { self.message = message }
    var diagnosticID: MessageID { MessageID(domain: "OpenCoreData", id: "Managed") }
    var severity: DiagnosticSeverity { .error }
}
