import Foundation

/// A function of the Swift runtime that Swift does not spell (`swift_tryRetain`,
/// `swift_enumerateAllMetadataSections`), looked up by name in the loaded images; nil where the
/// runtime does not export it.
func runtimeFunction<Function>(named name: String, as type: Function.Type) -> Function? {
    #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
    #else
        let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
    #endif
    guard let symbol = dlsym(handle, name) else { return nil }
    return unsafeBitCast(symbol, to: type)
}
