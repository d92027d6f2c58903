import OpenPredicate

// Core Data's codes as `CocoaError.Code` members, with Apple's Swift names, so that
// `catch let error as CocoaError where error.code == .managedObjectConstraintMerge` works: one
// member for every code of Core Data's `CoreDataErrors.h`. Apple's SDK also keeps the spellings
// that end in `Error` (deprecated in Swift 3), which older code still names; they are here too.
// `migrationConstraintViolation` and `persistentHistoryTokenExpired` have no member in Apple's
// SDK (only the `NS…Error` constants); these names follow its pattern.

extension CocoaError.Code {
    /// `NSManagedObjectValidationError` (1550).
    public static var managedObjectValidation: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectValidationError) }
    /// `NSManagedObjectConstraintValidationError` (1551).
    public static var managedObjectConstraintValidation: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectConstraintValidationError)
    }
    /// `NSValidationMultipleErrorsError` (1560).
    public static var validationMultipleErrors: CocoaError.Code { CocoaError.Code(rawValue: NSValidationMultipleErrorsError) }
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
    public static var validationNumberTooLarge: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooLargeError) }
    /// `NSValidationNumberTooSmallError` (1620).
    public static var validationNumberTooSmall: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooSmallError) }
    /// `NSValidationDateTooLateError` (1630).
    public static var validationDateTooLate: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooLateError) }
    /// `NSValidationDateTooSoonError` (1640).
    public static var validationDateTooSoon: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooSoonError) }
    /// `NSValidationInvalidDateError` (1650).
    public static var validationInvalidDate: CocoaError.Code { CocoaError.Code(rawValue: NSValidationInvalidDateError) }
    /// `NSValidationStringTooLongError` (1660).
    public static var validationStringTooLong: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooLongError) }
    /// `NSValidationStringTooShortError` (1670).
    public static var validationStringTooShort: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooShortError) }
    /// `NSValidationStringPatternMatchingError` (1680).
    public static var validationStringPatternMatching: CocoaError.Code {
        CocoaError.Code(rawValue: NSValidationStringPatternMatchingError)
    }
    /// `NSValidationInvalidURIError` (1690).
    public static var validationInvalidURI: CocoaError.Code { CocoaError.Code(rawValue: NSValidationInvalidURIError) }
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
    public static var managedObjectMerge: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectMergeError) }
    /// `NSManagedObjectConstraintMergeError` (133_021).
    public static var managedObjectConstraintMerge: CocoaError.Code {
        CocoaError.Code(rawValue: NSManagedObjectConstraintMergeError)
    }
    /// `NSPersistentStoreInvalidTypeError` (134_000).
    public static var persistentStoreInvalidType: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreInvalidTypeError) }
    /// `NSPersistentStoreTypeMismatchError` (134_010).
    public static var persistentStoreTypeMismatch: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreTypeMismatchError)
    }
    /// `NSPersistentStoreIncompatibleSchemaError` (134_020).
    public static var persistentStoreIncompatibleSchema: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreIncompatibleSchemaError)
    }
    /// `NSPersistentStoreSaveError` (134_030).
    public static var persistentStoreSave: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreSaveError) }
    /// `NSPersistentStoreIncompleteSaveError` (134_040).
    public static var persistentStoreIncompleteSave: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreIncompleteSaveError)
    }
    /// `NSPersistentStoreSaveConflictsError` (134_050).
    public static var persistentStoreSaveConflicts: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreSaveConflictsError)
    }
    /// `NSCoreDataError` (134_060).
    public static var coreData: CocoaError.Code { CocoaError.Code(rawValue: NSCoreDataError) }
    /// `NSPersistentStoreOperationError` (134_070).
    public static var persistentStoreOperation: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOperationError) }
    /// `NSPersistentStoreOpenError` (134_080).
    public static var persistentStoreOpen: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOpenError) }
    /// `NSPersistentStoreTimeoutError` (134_090).
    public static var persistentStoreTimeout: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreTimeoutError) }
    /// `NSPersistentStoreUnsupportedRequestTypeError` (134_091).
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreUnsupportedRequestTypeError)
    }
    /// `NSPersistentStoreIncompatibleVersionHashError` (134_100).
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentStoreIncompatibleVersionHashError)
    }
    /// `NSMigrationError` (134_110).
    public static var migration: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationError) }
    /// `NSMigrationConstraintViolationError` (134_111).
    public static var migrationConstraintViolation: CocoaError.Code {
        CocoaError.Code(rawValue: NSMigrationConstraintViolationError)
    }
    /// `NSMigrationCancelledError` (134_120).
    public static var migrationCancelled: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationCancelledError) }
    /// `NSMigrationMissingSourceModelError` (134_130).
    public static var migrationMissingSourceModel: CocoaError.Code {
        CocoaError.Code(rawValue: NSMigrationMissingSourceModelError)
    }
    /// `NSMigrationMissingMappingModelError` (134_140).
    public static var migrationMissingMappingModel: CocoaError.Code {
        CocoaError.Code(rawValue: NSMigrationMissingMappingModelError)
    }
    /// `NSMigrationManagerSourceStoreError` (134_150).
    public static var migrationManagerSourceStore: CocoaError.Code {
        CocoaError.Code(rawValue: NSMigrationManagerSourceStoreError)
    }
    /// `NSMigrationManagerDestinationStoreError` (134_160).
    public static var migrationManagerDestinationStore: CocoaError.Code {
        CocoaError.Code(rawValue: NSMigrationManagerDestinationStoreError)
    }
    /// `NSEntityMigrationPolicyError` (134_170).
    public static var entityMigrationPolicy: CocoaError.Code { CocoaError.Code(rawValue: NSEntityMigrationPolicyError) }
    /// `NSSQLiteError` (134_180).
    public static var sqlite: CocoaError.Code { CocoaError.Code(rawValue: NSSQLiteError) }
    /// `NSInferredMappingModelError` (134_190).
    public static var inferredMappingModel: CocoaError.Code { CocoaError.Code(rawValue: NSInferredMappingModelError) }
    /// `NSExternalRecordImportError` (134_200).
    public static var externalRecordImport: CocoaError.Code { CocoaError.Code(rawValue: NSExternalRecordImportError) }
    /// `NSPersistentHistoryTokenExpiredError` (134_301).
    public static var persistentHistoryTokenExpired: CocoaError.Code {
        CocoaError.Code(rawValue: NSPersistentHistoryTokenExpiredError)
    }
}

extension CocoaError.Code {
    /// `NSManagedObjectValidationError` (1550), by its Swift 3 name.
    @available(*, deprecated, renamed: "managedObjectValidation")
    public static var managedObjectValidationError: CocoaError.Code { .managedObjectValidation }
    /// `NSManagedObjectConstraintValidationError` (1551), by its Swift 3 name.
    @available(*, deprecated, renamed: "managedObjectConstraintValidation")
    public static var managedObjectConstraintValidationError: CocoaError.Code { .managedObjectConstraintValidation }
    /// `NSValidationMultipleErrorsError` (1560), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationMultipleErrors")
    public static var validationMultipleErrorsError: CocoaError.Code { .validationMultipleErrors }
    /// `NSValidationMissingMandatoryPropertyError` (1570), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationMissingMandatoryProperty")
    public static var validationMissingMandatoryPropertyError: CocoaError.Code { .validationMissingMandatoryProperty }
    /// `NSValidationRelationshipLacksMinimumCountError` (1580), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationRelationshipLacksMinimumCount")
    public static var validationRelationshipLacksMinimumCountError: CocoaError.Code { .validationRelationshipLacksMinimumCount }
    /// `NSValidationRelationshipExceedsMaximumCountError` (1590), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationRelationshipExceedsMaximumCount")
    public static var validationRelationshipExceedsMaximumCountError: CocoaError.Code {
        .validationRelationshipExceedsMaximumCount
    }
    /// `NSValidationRelationshipDeniedDeleteError` (1600), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationRelationshipDeniedDelete")
    public static var validationRelationshipDeniedDeleteError: CocoaError.Code { .validationRelationshipDeniedDelete }
    /// `NSValidationNumberTooLargeError` (1610), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationNumberTooLarge")
    public static var validationNumberTooLargeError: CocoaError.Code { .validationNumberTooLarge }
    /// `NSValidationNumberTooSmallError` (1620), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationNumberTooSmall")
    public static var validationNumberTooSmallError: CocoaError.Code { .validationNumberTooSmall }
    /// `NSValidationDateTooLateError` (1630), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationDateTooLate")
    public static var validationDateTooLateError: CocoaError.Code { .validationDateTooLate }
    /// `NSValidationDateTooSoonError` (1640), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationDateTooSoon")
    public static var validationDateTooSoonError: CocoaError.Code { .validationDateTooSoon }
    /// `NSValidationInvalidDateError` (1650), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationInvalidDate")
    public static var validationInvalidDateError: CocoaError.Code { .validationInvalidDate }
    /// `NSValidationStringTooLongError` (1660), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationStringTooLong")
    public static var validationStringTooLongError: CocoaError.Code { .validationStringTooLong }
    /// `NSValidationStringTooShortError` (1670), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationStringTooShort")
    public static var validationStringTooShortError: CocoaError.Code { .validationStringTooShort }
    /// `NSValidationStringPatternMatchingError` (1680), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationStringPatternMatching")
    public static var validationStringPatternMatchingError: CocoaError.Code { .validationStringPatternMatching }
    /// `NSValidationInvalidURIError` (1690), by its Swift 3 name.
    @available(*, deprecated, renamed: "validationInvalidURI")
    public static var validationInvalidURIError: CocoaError.Code { .validationInvalidURI }
    /// `NSManagedObjectContextLockingError` (132_000), by its Swift 3 name.
    @available(*, deprecated, renamed: "managedObjectContextLocking")
    public static var managedObjectContextLockingError: CocoaError.Code { .managedObjectContextLocking }
    /// `NSPersistentStoreCoordinatorLockingError` (132_010), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreCoordinatorLocking")
    public static var persistentStoreCoordinatorLockingError: CocoaError.Code { .persistentStoreCoordinatorLocking }
    /// `NSManagedObjectReferentialIntegrityError` (133_000), by its Swift 3 name.
    @available(*, deprecated, renamed: "managedObjectReferentialIntegrity")
    public static var managedObjectReferentialIntegrityError: CocoaError.Code { .managedObjectReferentialIntegrity }
    /// `NSManagedObjectExternalRelationshipError` (133_010), by its Swift 3 name.
    @available(*, deprecated, renamed: "managedObjectExternalRelationship")
    public static var managedObjectExternalRelationshipError: CocoaError.Code { .managedObjectExternalRelationship }
    /// `NSManagedObjectMergeError` (133_020), by its Swift 3 name.
    @available(*, deprecated, renamed: "managedObjectMerge")
    public static var managedObjectMergeError: CocoaError.Code { .managedObjectMerge }
    /// `NSManagedObjectConstraintMergeError` (133_021), by its Swift 3 name.
    @available(*, deprecated, renamed: "managedObjectConstraintMerge")
    public static var managedObjectConstraintMergeError: CocoaError.Code { .managedObjectConstraintMerge }
    /// `NSPersistentStoreInvalidTypeError` (134_000), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreInvalidType")
    public static var persistentStoreInvalidTypeError: CocoaError.Code { .persistentStoreInvalidType }
    /// `NSPersistentStoreTypeMismatchError` (134_010), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreTypeMismatch")
    public static var persistentStoreTypeMismatchError: CocoaError.Code { .persistentStoreTypeMismatch }
    /// `NSPersistentStoreIncompatibleSchemaError` (134_020), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreIncompatibleSchema")
    public static var persistentStoreIncompatibleSchemaError: CocoaError.Code { .persistentStoreIncompatibleSchema }
    /// `NSPersistentStoreSaveError` (134_030), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreSave")
    public static var persistentStoreSaveError: CocoaError.Code { .persistentStoreSave }
    /// `NSPersistentStoreIncompleteSaveError` (134_040), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreIncompleteSave")
    public static var persistentStoreIncompleteSaveError: CocoaError.Code { .persistentStoreIncompleteSave }
    /// `NSPersistentStoreSaveConflictsError` (134_050), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreSaveConflicts")
    public static var persistentStoreSaveConflictsError: CocoaError.Code { .persistentStoreSaveConflicts }
    /// `NSCoreDataError` (134_060), by its Swift 3 name.
    @available(*, deprecated, renamed: "coreData")
    public static var coreDataError: CocoaError.Code { .coreData }
    /// `NSPersistentStoreOperationError` (134_070), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreOperation")
    public static var persistentStoreOperationError: CocoaError.Code { .persistentStoreOperation }
    /// `NSPersistentStoreOpenError` (134_080), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreOpen")
    public static var persistentStoreOpenError: CocoaError.Code { .persistentStoreOpen }
    /// `NSPersistentStoreTimeoutError` (134_090), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreTimeout")
    public static var persistentStoreTimeoutError: CocoaError.Code { .persistentStoreTimeout }
    /// `NSPersistentStoreUnsupportedRequestTypeError` (134_091), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreUnsupportedRequestType")
    public static var persistentStoreUnsupportedRequestTypeError: CocoaError.Code { .persistentStoreUnsupportedRequestType }
    /// `NSPersistentStoreIncompatibleVersionHashError` (134_100), by its Swift 3 name.
    @available(*, deprecated, renamed: "persistentStoreIncompatibleVersionHash")
    public static var persistentStoreIncompatibleVersionHashError: CocoaError.Code { .persistentStoreIncompatibleVersionHash }
    /// `NSMigrationError` (134_110), by its Swift 3 name.
    @available(*, deprecated, renamed: "migration")
    public static var migrationError: CocoaError.Code { .migration }
    /// `NSMigrationCancelledError` (134_120), by its Swift 3 name.
    @available(*, deprecated, renamed: "migrationCancelled")
    public static var migrationCancelledError: CocoaError.Code { .migrationCancelled }
    /// `NSMigrationMissingSourceModelError` (134_130), by its Swift 3 name.
    @available(*, deprecated, renamed: "migrationMissingSourceModel")
    public static var migrationMissingSourceModelError: CocoaError.Code { .migrationMissingSourceModel }
    /// `NSMigrationMissingMappingModelError` (134_140), by its Swift 3 name.
    @available(*, deprecated, renamed: "migrationMissingMappingModel")
    public static var migrationMissingMappingModelError: CocoaError.Code { .migrationMissingMappingModel }
    /// `NSMigrationManagerSourceStoreError` (134_150), by its Swift 3 name.
    @available(*, deprecated, renamed: "migrationManagerSourceStore")
    public static var migrationManagerSourceStoreError: CocoaError.Code { .migrationManagerSourceStore }
    /// `NSMigrationManagerDestinationStoreError` (134_160), by its Swift 3 name.
    @available(*, deprecated, renamed: "migrationManagerDestinationStore")
    public static var migrationManagerDestinationStoreError: CocoaError.Code { .migrationManagerDestinationStore }
    /// `NSEntityMigrationPolicyError` (134_170), by its Swift 3 name.
    @available(*, deprecated, renamed: "entityMigrationPolicy")
    public static var entityMigrationPolicyError: CocoaError.Code { .entityMigrationPolicy }
    /// `NSSQLiteError` (134_180), by its Swift 3 name.
    @available(*, deprecated, renamed: "sqlite")
    public static var sqliteError: CocoaError.Code { .sqlite }
    /// `NSInferredMappingModelError` (134_190), by its Swift 3 name.
    @available(*, deprecated, renamed: "inferredMappingModel")
    public static var inferredMappingModelError: CocoaError.Code { .inferredMappingModel }
    /// `NSExternalRecordImportError` (134_200), by its Swift 3 name.
    @available(*, deprecated, renamed: "externalRecordImport")
    public static var externalRecordImportError: CocoaError.Code { .externalRecordImport }
}
