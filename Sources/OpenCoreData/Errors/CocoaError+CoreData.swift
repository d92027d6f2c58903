import OpenPredicate

// Core Data's codes as `CocoaError.Code` members, with Apple's Swift names, so that
// `catch let error as CocoaError where error.code == .managedObjectConstraintMerge` works.

extension CocoaError.Code {
    /// `NSManagedObjectValidationError` (1550).
    public static var managedObjectValidation: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectValidationError)
    }
    /// `NSManagedObjectConstraintValidationError` (1551).
    public static var managedObjectConstraintValidation: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectConstraintValidationError)
    }
    /// `NSValidationMultipleErrorsError` (1560).
    public static var validationMultipleErrors: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationMultipleErrorsError)
    }
    /// `NSValidationMissingMandatoryPropertyError` (1570).
    public static var validationMissingMandatoryProperty: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationMissingMandatoryPropertyError)
    }
    /// `NSValidationRelationshipLacksMinimumCountError` (1580).
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationRelationshipLacksMinimumCountError)
    }
    /// `NSValidationRelationshipExceedsMaximumCountError` (1590).
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationRelationshipExceedsMaximumCountError)
    }
    /// `NSValidationRelationshipDeniedDeleteError` (1600).
    public static var validationRelationshipDeniedDelete: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationRelationshipDeniedDeleteError)
    }
    /// `NSValidationNumberTooLargeError` (1610).
    public static var validationNumberTooLarge: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationNumberTooLargeError)
    }
    /// `NSValidationNumberTooSmallError` (1620).
    public static var validationNumberTooSmall: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationNumberTooSmallError)
    }
    /// `NSValidationDateTooLateError` (1630).
    public static var validationDateTooLate: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationDateTooLateError)
    }
    /// `NSValidationDateTooSoonError` (1640).
    public static var validationDateTooSoon: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationDateTooSoonError)
    }
    /// `NSValidationInvalidDateError` (1650).
    public static var validationInvalidDate: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationInvalidDateError)
    }
    /// `NSValidationStringTooLongError` (1660).
    public static var validationStringTooLong: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationStringTooLongError)
    }
    /// `NSValidationStringTooShortError` (1670).
    public static var validationStringTooShort: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationStringTooShortError)
    }
    /// `NSValidationStringPatternMatchingError` (1680).
    public static var validationStringPatternMatching: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationStringPatternMatchingError)
    }
    /// `NSValidationInvalidURIError` (1690).
    public static var validationInvalidURI: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationInvalidURIError)
    }
    /// `NSManagedObjectContextLockingError` (132_000).
    public static var managedObjectContextLocking: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectContextLockingError)
    }
    /// `NSPersistentStoreCoordinatorLockingError` (132_010).
    public static var persistentStoreCoordinatorLocking: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreCoordinatorLockingError)
    }
    /// `NSManagedObjectReferentialIntegrityError` (133_000).
    public static var managedObjectReferentialIntegrity: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectReferentialIntegrityError)
    }
    /// `NSManagedObjectExternalRelationshipError` (133_010).
    public static var managedObjectExternalRelationship: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectExternalRelationshipError)
    }
    /// `NSManagedObjectMergeError` (133_020).
    public static var managedObjectMerge: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectMergeError)
    }
    /// `NSManagedObjectConstraintMergeError` (133_021).
    public static var managedObjectConstraintMerge: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectConstraintMergeError)
    }
    /// `NSPersistentStoreInvalidTypeError` (134_000).
    public static var persistentStoreInvalidType: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreInvalidTypeError)
    }
    /// `NSPersistentStoreTypeMismatchError` (134_010).
    public static var persistentStoreTypeMismatch: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreTypeMismatchError)
    }
    /// `NSPersistentStoreIncompatibleSchemaError` (134_020).
    public static var persistentStoreIncompatibleSchema: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreIncompatibleSchemaError)
    }
    /// `NSPersistentStoreSaveError` (134_030).
    public static var persistentStoreSave: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreSaveError)
    }
    /// `NSPersistentStoreIncompleteSaveError` (134_040).
    public static var persistentStoreIncompleteSave: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreIncompleteSaveError)
    }
    /// `NSPersistentStoreSaveConflictsError` (134_050).
    public static var persistentStoreSaveConflicts: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreSaveConflictsError)
    }
    /// `NSCoreDataError` (134_060).
    public static var coreData: CocoaError.Code {
        CocoaError.Code(rawValue: NSCoreDataError)
    }
    /// `NSPersistentStoreOperationError` (134_070).
    public static var persistentStoreOperation: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreOperationError)
    }
    /// `NSPersistentStoreOpenError` (134_080).
    public static var persistentStoreOpen: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreOpenError)
    }
    /// `NSPersistentStoreTimeoutError` (134_090).
    public static var persistentStoreTimeout: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreTimeoutError)
    }
    /// `NSPersistentStoreUnsupportedRequestTypeError` (134_091).
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreUnsupportedRequestTypeError)
    }
    /// `NSPersistentStoreIncompatibleVersionHashError` (134_100).
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreIncompatibleVersionHashError)
    }
    /// `NSMigrationError` (134_110).
    public static var migration: CocoaError.Code {
        CocoaError.Code(rawValue: NSMigrationError)
    }
    /// `NSSQLiteError` (134_180).
    public static var sqlite: CocoaError.Code {
        CocoaError.Code(rawValue: NSSQLiteError)
    }
}
