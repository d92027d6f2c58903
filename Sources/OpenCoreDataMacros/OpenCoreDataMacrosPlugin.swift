import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in: the macros this module provides, by type.
///
/// Alone in its file: `OpenCoreDataMacrosTests` compiles the macros' own files into the test
/// module (see `Package.swift`), and a test module has a `main` of its own.
@main
struct OpenCoreDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ManagedMacro.self, ModelMacro.self, PersistedPropertyMacro.self, SchemaMarkerMacro.self, ModelActorMacro.self,
        ModelKeyPathListMacro.self,
    ]
}
