import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

/// What `@Model`, `@ModelActor`, `#Unique` and `#Index` write, and what they refuse.
final class ModelMacroTests: XCTestCase {
    private let macros: [String: Macro.Type] = [
        "Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self, "Attribute": SchemaMarkerMacro.self,
        "Relationship": SchemaMarkerMacro.self, "Transient": SchemaMarkerMacro.self, "ModelActor": ModelActorMacro.self,
        "Unique": ModelKeyPathListMacro.self, "Index": ModelKeyPathListMacro.self,
    ]

    func testModel() {
        assertMacroExpansion(
            """
            @Model
            final class Trip {
                #Unique<Trip>([\\.name, \\.start])
                @Attribute(.unique) var name: String
                var start: Date = .now
                var notes: String?
                @Relationship(deleteRule: .cascade) var items: [Item] = []
                @Transient var isSelected = false
                var days: Int { 1 }
                static var count = 0
            }
            """,
            expandedSource: """
                final class Trip {
                    static var _uniquenessConstraints: [[AnyKeyPath]] {
                        [[\\Trip.name, \\Trip.start]]
                    }
                    @SwiftData._PersistedProperty var name: String
                    @SwiftData._PersistedProperty
                    var start: Date = .now
                    @SwiftData._PersistedProperty
                    var notes: String?
                    @SwiftData._PersistedProperty var items: [Item] = []
                    var isSelected = false
                    var days: Int { 1 }
                    static var count = 0

                    var persistentBackingData: SwiftData._ModelBackingData = SwiftData._ModelBackingData()

                    required init(backingData: SwiftData._ModelBackingData) {
                        _name = SwiftData._ModelNoValue()
                        _start = SwiftData._ModelNoValue()
                        _notes = SwiftData._ModelNoValue()
                        _items = SwiftData._ModelNoValue()
                        self.persistentBackingData = backingData
                    }

                    static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                        [
                            SwiftData.Schema.PropertyMetadata(name: "name", keypath: \\Trip.name, defaultValue: nil, metadata: SwiftData.Schema.Attribute(.unique)),
                            SwiftData.Schema.PropertyMetadata(name: "start", keypath: \\Trip.start, defaultValue: { () -> Date in
                                    .now
                                }(), metadata: nil),
                            SwiftData.Schema.PropertyMetadata(name: "notes", keypath: \\Trip.notes, defaultValue: nil, metadata: nil),
                            SwiftData.Schema.PropertyMetadata(name: "items", keypath: \\Trip.items, defaultValue: { () -> [Item] in
                                    []
                                }(), metadata: SwiftData.Schema.Relationship(deleteRule: .cascade))
                        ]
                    }
                }

                extension Trip: SwiftData.PersistentModel {
                }
                """,
            macros: macros)
    }

    func testPersistedProperties() {
        assertMacroExpansion(
            """
            @_PersistedProperty var name: String
            @_PersistedProperty var notes: String?
            """,
            expandedSource: """
                var name: String {
                    @storageRestrictions(accesses: persistentBackingData, initializes: _name)
                    init(initialValue) {
                        persistentBackingData._setValue(initialValue, forKey: "name")
                        _name = SwiftData._ModelNoValue()
                    }
                    get {
                        persistentBackingData._observationRegistrar.access(self, keyPath: \\.name)
                        return persistentBackingData._value(forKey: "name")
                    }
                    set {
                        persistentBackingData._observationRegistrar.withMutation(of: self, keyPath: \\.name) {
                            persistentBackingData._setValue(newValue, forKey: "name")
                        }
                    }
                }

                private var _name: SwiftData._ModelNoValue
                var notes: String? {
                    @storageRestrictions(accesses: persistentBackingData, initializes: _notes)
                    init(initialValue) {
                        persistentBackingData._setValue(initialValue, forKey: "notes")
                        _notes = SwiftData._ModelNoValue()
                    }
                    get {
                        persistentBackingData._observationRegistrar.access(self, keyPath: \\.notes)
                        return persistentBackingData._value(forKey: "notes")
                    }
                    set {
                        persistentBackingData._observationRegistrar.withMutation(of: self, keyPath: \\.notes) {
                            persistentBackingData._setValue(newValue, forKey: "notes")
                        }
                    }
                }

                private var _notes: SwiftData._ModelNoValue = SwiftData._ModelNoValue()
                """,
            macros: macros)
    }

    func testModelActor() {
        assertMacroExpansion(
            """
            @ModelActor
            public actor Importer {
            }
            """,
            expandedSource: """
                public actor Importer {

                    public nonisolated let modelExecutor: any SwiftData.ModelExecutor

                    public nonisolated let modelContainer: SwiftData.ModelContainer

                    public init(modelContainer: SwiftData.ModelContainer) {
                        let modelContext = SwiftData.ModelContext(modelContainer)
                        self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: SwiftData.ModelActor {
                }
                """,
            macros: macros)
    }

    func testRefusals() {
        assertMacroExpansion(
            """
            @Model
            struct Trip {
            }
            @ModelActor
            final class Importer {
            }
            #Unique([\\.name])
            """,
            expandedSource: """
                struct Trip {
                }
                final class Importer {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model applies to a class: @Model final class Trip { … }", line: 1, column: 1),
                DiagnosticSpec(message: "@ModelActor applies to an actor: @ModelActor actor Importer { … }", line: 4, column: 1),
                DiagnosticSpec(message: "#Unique names its model: #Unique<Trip>([\\.name])", line: 7, column: 1),
            ],
            macros: macros)
    }
}
