import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

/// What `@Managed` writes, and what it refuses.
final class ManagedMacroTests: XCTestCase {
    private let macros: [String: Macro.Type] = ["Managed": ManagedMacro.self]

    func testThePropertyNameIsTheKey() {
        assertMacroExpansion(
            "@Managed public var title: String?",
            expandedSource: """
                public var title: String? {
                    get {
                        _managedValue(forKey: "title")
                    }
                    set {
                        _setManagedValue(newValue, forKey: "title")
                    }
                }
                """,
            macros: macros)
    }

    func testAGivenKeyAndABacktickedName() {
        assertMacroExpansion(
            #"@Managed("title") var heading: String?"#,
            expandedSource: """
                var heading: String? {
                    get {
                        _managedValue(forKey: "title")
                    }
                    set {
                        _setManagedValue(newValue, forKey: "title")
                    }
                }
                """,
            macros: macros)
        assertMacroExpansion(
            "@Managed var `default`: Bool",
            expandedSource: """
                var `default`: Bool {
                    get {
                        _managedValue(forKey: "default")
                    }
                    set {
                        _setManagedValue(newValue, forKey: "default")
                    }
                }
                """,
            macros: macros)
    }

    func testAMarkerBesideAPropertyOfAClassBodyNotOfAnExtension() {
        assertMacroExpansion(
            """
            class Book: NSManagedObject {
                @Managed var title: String
            }
            extension Book {
                @Managed var pages: Int32
            }
            """,
            expandedSource: """
                class Book: NSManagedObject {
                    var title: String {
                        get {
                            _managedValue(forKey: "title")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "title")
                        }
                    }

                    private final var _managed_title = _ManagedPropertyMarker()
                }
                extension Book {
                    var pages: Int32 {
                        get {
                            _managedValue(forKey: "pages")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "pages")
                        }
                    }
                }
                """,
            macros: macros)
    }

    func testWhatItRefuses() {
        assertMacroExpansion(
            "@Managed let title: String?",
            expandedSource: "let title: String?",
            diagnostics: [DiagnosticSpec(message: "@Managed properties are 'var'", line: 1, column: 10)],
            macros: macros)
        assertMacroExpansion(
            #"@Managed var title: String? = "x""#,
            expandedSource: #"var title: String? = "x""#,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed properties have no initial value: give the attribute a default value in the model",
                    line: 1, column: 29)
            ],
            macros: macros)
        assertMacroExpansion(
            "@Managed var title",
            expandedSource: "var title",
            diagnostics: [
                DiagnosticSpec(message: "@Managed applies to one stored property with a type: @Managed var name: String?", line: 1, column: 1)
            ],
            macros: macros)
    }
}
