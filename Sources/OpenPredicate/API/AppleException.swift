/// The one way OpenCoreData stops the process: where Apple's non-throwing API raises an
/// Objective-C exception, we stop with the same name and reason. Every such API has a throwing
/// twin (or a way to check first) for input that comes from users.
package enum AppleException {
    package static func raise(_ name: String, reason: String) -> Never {
        fatalError("*** Terminating app due to uncaught exception '\(name)', reason: '\(reason)'")
    }

    package static func invalidArgument(_ reason: String) -> Never {
        raise("NSInvalidArgumentException", reason: reason)
    }

    package static func internalInconsistency(_ reason: String) -> Never {
        raise("NSInternalInconsistencyException", reason: reason)
    }
}
