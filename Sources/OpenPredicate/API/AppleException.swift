/// The one way OpenPredicate stops the process: where Apple's non-throwing API raises an
/// Objective-C exception, we stop with the same name and reason. Every such API has a throwing
/// twin for input that comes from users.
enum AppleException {
    static func raise(_ name: String, reason: String) -> Never {
        fatalError("*** Terminating app due to uncaught exception '\(name)', reason: '\(reason)'")
    }

    static func invalidArgument(_ reason: String) -> Never {
        raise("NSInvalidArgumentException", reason: reason)
    }
}
