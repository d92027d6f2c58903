/// A value transformer that archives values to `Data` with secure keyed archiving, and
/// unarchives `Data` into objects of the allowed classes only: the transformer Apple recommends
/// for transformable attributes (`NSValueTransformerName.secureUnarchiveFromDataTransformerName`).
///
/// `transformedValue(_:)` unarchives (`Data` → object); `reverseTransformedValue(_:)` archives.
/// Core Data uses it the other way round for an attribute: archives when saving, unarchives when
/// reading. Subclass it to allow your own `NSSecureCoding` classes:
///
/// ```swift
/// final class ColorTransformer: NSSecureUnarchiveFromDataTransformer {
///     override class var allowedTopLevelClasses: [AnyClass] { [Color.self] }
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
/// ```
///
/// Data that does not decode into an allowed class reads as nil.
///
/// **Differences from Apple:** archiving and unarchiving are corelibs' `NSKeyedArchiver` and
/// `NSKeyedUnarchiver`, which read the archives Apple's write (and write archives Apple's read)
/// for Foundation's classes; a class of your own is found by the name Swift gives it on Linux
/// (`Module.Class`), or by the name set with `NSKeyedUnarchiver.setClass(_:forClassName:)`. The
/// allowed classes are checked for the top-level object only (corelibs' unarchiver stops the
/// process when a secure decode meets a class it was not allowed, so the archive is decoded
/// first and its root checked after).
/// [Apple's documentation](https://developer.apple.com/documentation/foundation/nssecureunarchivefromdatatransformer)
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// A transformer for the allowed classes.
    override public init() {
        super.init()
    }

    /// The classes the top-level object of an archive may be, when archiving and unarchiving.
    ///
    /// **Default:** `transformedValueClass()` when a subclass overrides it to return a class
    /// other than `NSObject`; otherwise `NSArray`, `NSDictionary`, `NSSet`, `NSString`,
    /// `NSNumber`, `NSDate`, `NSData`, `NSURL`, `NSUUID` and `NSNull`, as on Apple.
    open class var allowedTopLevelClasses: [AnyClass] {
        let valueClass: AnyClass = transformedValueClass()
        if valueClass != NSObject.self { return [valueClass] }
        return [
            NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
            NSURL.self, NSUUID.self, NSNull.self,
        ]
    }

    /// Reversible. **Default:** true.
    override open class func allowsReverseTransformation() -> Bool { true }

    /// The object archived in `value` (a `Data`), when its class is one of
    /// `allowedTopLevelClasses`; nil otherwise.
    override open func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return KeyedArchive.unarchive(data, allowing: Swift.type(of: self).allowedTopLevelClasses)
    }

    /// The keyed archive of `value` (securely coded), as `Data`; nil for nil or for a value that
    /// cannot be archived.
    override open func reverseTransformedValue(_ value: Any?) -> Any? {
        KeyedArchive.archive(value, secure: true)
    }
}
