import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// SwiftData's `@Model final class Trip { var name: String … }`: each stored `var` (not
/// `@Transient`, not `static`) becomes a persisted property (`@_PersistedProperty`), read and
/// written through the model's backing data; the class gains that backing data,
/// `init(backingData:)`, `schemaMetadata` (a line per persisted property: name, key path,
/// default value, `@Attribute` / `@Relationship` options) and `PersistentModel`.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    /// The backing data, `init(backingData:)` and `schemaMetadata` of the class.
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDeclaration = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(
                Diagnostic(node: Syntax(node), message: ModelMessage("@Model applies to a class: @Model final class Trip { … }")))
            return []
        }
        let typeName = classDeclaration.name.trimmedDescription
        let properties = persistedProperties(of: declaration)
        let placeholders = properties.map { "_\($0.name) = SwiftData._ModelNoValue()" }.joined(separator: "\n")
        let metadata = properties.map { property in
            let defaultValue = property.initializer.map { "{ () -> \(property.type) in \($0) }()" } ?? "nil"
            return
                "SwiftData.Schema.PropertyMetadata(name: \(literal(property.name)), keypath: \\\(typeName).\(property.identifier), defaultValue: \(defaultValue), metadata: \(property.metadata ?? "nil"))"
        }
        let access =
            classDeclaration.modifiers.contains { $0.name.tokenKind == .keyword(.public) || $0.name.tokenKind == .keyword(.open) }
            ? "public " : ""
        return [
            "\(raw: access)var persistentBackingData: SwiftData._ModelBackingData = SwiftData._ModelBackingData()",
            """
            \(raw: access)required init(backingData: SwiftData._ModelBackingData) {
            \(raw: placeholders)
            self.persistentBackingData = backingData
            }
            """,
            """
            \(raw: access)static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
            [
            \(raw: metadata.joined(separator: ",\n"))
            ]
            }
            """,
        ]
    }

    /// `@_PersistedProperty` for each persisted property.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let variable = member.as(VariableDeclSyntax.self), PersistedProperty(variable) != nil else { return [] }
        return ["@SwiftData._PersistedProperty"]
    }

    /// The conformance to `PersistentModel`.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): SwiftData.PersistentModel {}")]
    }

    private static func persistedProperties(of declaration: some DeclGroupSyntax) -> [PersistedProperty] {
        declaration.memberBlock.members.compactMap { $0.decl.as(VariableDeclSyntax.self).flatMap(PersistedProperty.init) }
    }
}

/// `@_PersistedProperty var name: String`: an `init` accessor (what the class's initializers
/// and default value assign), `get` and `set` through the model's backing data (observed, as an
/// `@Observable` class's properties are), and the
/// placeholder `_name` the `init` accessor initializes (of a type with no size).
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    /// The property's `init`, `get` and `set`.
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = PersistedProperty(variable) else {
            return []
        }
        let key = literal(property.name)
        return [
            """
            @storageRestrictions(accesses: persistentBackingData, initializes: _\(raw: property.name))
            init(initialValue) {
            persistentBackingData._setValue(initialValue, forKey: \(raw: key))
            _\(raw: property.name) = SwiftData._ModelNoValue()
            }
            """,
            """
            get {
            persistentBackingData._observationRegistrar.access(self, keyPath: \\.\(raw: property.identifier))
            return persistentBackingData._value(forKey: \(raw: key))
            }
            """,
            """
            set {
            persistentBackingData._observationRegistrar.withMutation(of: self, keyPath: \\.\(raw: property.identifier)) {
            persistentBackingData._setValue(newValue, forKey: \(raw: key))
            }
            }
            """,
        ]
    }

    /// The placeholder `_name` of the property.
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = PersistedProperty(variable) else {
            return []
        }
        // An optional property without a default value reads nil until set, so an initializer
        // need not set it (as a stored optional `var` need not be).
        let initial = property.isOptional && property.initializer == nil ? " = SwiftData._ModelNoValue()" : ""
        return ["private var _\(raw: property.name): SwiftData._ModelNoValue\(raw: initial)"]
    }
}

/// `@Attribute(…)`, `@Relationship(…)`, `@Transient`: read by `@Model`,
/// they add nothing themselves.
public struct SchemaMarkerMacro: PeerMacro {
    /// Nothing: `@Model` reads these attributes.
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

/// A stored `var` of a `@Model` class that is persisted.
private struct PersistedProperty {
    let identifier: String
    let name: String
    let type: String
    let initializer: String?
    let isOptional: Bool
    /// `SwiftData.Schema.Attribute(…)` or `SwiftData.Schema.Relationship(…)` from the
    /// property's `@Attribute` or `@Relationship`.
    let metadata: String?

    init?(_ variable: VariableDeclSyntax) {
        guard variable.bindingSpecifier.tokenKind == .keyword(.var), variable.bindings.count == 1,
            let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
            let type = binding.typeAnnotation?.type
        else { return nil }
        // Computed properties (and stored ones with observers, which have no persisted form)
        // stay as they are.
        if binding.accessorBlock != nil { return nil }
        if variable.modifiers.contains(where: {
            [.keyword(.static), .keyword(.class), .keyword(.lazy)].contains($0.name.tokenKind)
        }) {
            return nil
        }
        var metadata: String?
        for case .attribute(let attribute) in variable.attributes {
            let name = attribute.attributeName.trimmedDescription
            switch name {
            case "Transient", "SwiftData.Transient":
                return nil
            case "Attribute", "SwiftData.Attribute":
                metadata = "SwiftData.Schema.Attribute(\(attribute.arguments?.trimmedDescription ?? ""))"
            case "Relationship", "SwiftData.Relationship":
                metadata = "SwiftData.Schema.Relationship(\(attribute.arguments?.trimmedDescription ?? ""))"
            default:
                break
            }
        }
        self.identifier = identifier.text
        self.name = identifier.text.filter { $0 != "`" }
        self.type = type.trimmedDescription
        self.initializer = binding.initializer?.value.trimmedDescription
        self.isOptional =
            type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
            || self.type.hasPrefix("Optional<")
        self.metadata = metadata
    }
}

/// A property's name (an identifier, with nothing to escape) as a string literal.
private func literal(_ name: String) -> String { "\"" + name + "\"" }

private struct ModelMessage: DiagnosticMessage {
    let message: String
    init(_ message: String) { self.message = message }
    var diagnosticID: MessageID { MessageID(domain: "SwiftData", id: "Model") }
    var severity: DiagnosticSeverity { .error }
}

/// SwiftData's `@ModelActor actor Importer { … }`: the actor runs on a serial executor that
/// owns a `ModelContext` of the container it is made with (`init(modelContainer:)`).
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    /// `modelExecutor`, `modelContainer` and `init(modelContainer:)`.
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actor = declaration.as(ActorDeclSyntax.self) else {
            context.diagnose(
                Diagnostic(
                    node: Syntax(node), message: ModelMessage("@ModelActor applies to an actor: @ModelActor actor Importer { … }")
                ))
            return []
        }
        let access = actor.modifiers.contains { $0.name.tokenKind == .keyword(.public) } ? "public " : ""
        return [
            "\(raw: access)nonisolated let modelExecutor: any SwiftData.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: SwiftData.ModelContainer",
            """
            \(raw: access)init(modelContainer: SwiftData.ModelContainer) {
            let modelContext = SwiftData.ModelContext(modelContainer)
            self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
            self.modelContainer = modelContainer
            }
            """,
        ]
    }

    /// The conformance to `ModelActor`.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): SwiftData.ModelActor {}")]
    }
}

/// SwiftData's `#Unique<Trip>([\.name], [\.start, \.end])` and `#Index<Trip>(…)` in a `@Model`
/// class: a static property listing the key paths (each list one constraint or index), which
/// the schema reads.
public struct ModelKeyPathListMacro: DeclarationMacro {
    /// `static var _uniquenessConstraints` (for `#Unique`) or `static var _indexKeyPaths` (for `#Index`).
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let root = node.genericArgumentClause?.arguments.first?.argument.trimmedDescription else {
            context.diagnose(
                Diagnostic(
                    node: Syntax(node),
                    message: ModelMessage("#\(node.macroName.text) names its model: #\(node.macroName.text)<Trip>([\\.name])")))
            return []
        }
        let property = node.macroName.text == "Unique" ? "_uniquenessConstraints" : "_indexKeyPaths"
        let lists = node.arguments.map { argument in
            // `\.name` → `\Trip.name`: the key paths' root, written out.
            argument.expression.trimmedDescription.split(separator: "\\.", omittingEmptySubsequences: false)
                .joined(separator: "\\\(root).")
        }
        return ["static var \(raw: property): [[AnyKeyPath]] { [\(raw: lists.joined(separator: ", "))] }"]
    }
}
