import OpenPredicate

/// Builds the `NSError`s OpenCoreData throws: `NSCocoaErrorDomain`, Core Data's code, and a
/// message that names the culprit.
enum CoreDataError {
    static func make(code: Int, reason: String, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = reason
        info[NSLocalizedFailureReasonErrorKey] = reason
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
