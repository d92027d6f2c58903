import OpenPredicate

// Core Data's error codes in `NSCocoaErrorDomain`, with Apple's values
// (https://developer.apple.com/documentation/coredata/core-data-constants).

/// A managed object failed validation (generic).
public let NSManagedObjectValidationError = 1550
/// A uniqueness constraint was violated during validation.
public let NSManagedObjectConstraintValidationError = 1551
/// Several validation errors at once; they are in the error's `NSDetailedErrors`.
public let NSValidationMultipleErrorsError = 1560
/// A non-optional property has no value.
public let NSValidationMissingMandatoryPropertyError = 1570
/// A to-many relationship has fewer objects than its `minCount`.
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// A bounded to-many relationship has more objects than its `maxCount`.
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// A deny delete rule refused a deletion.
public let NSValidationRelationshipDeniedDeleteError = 1600
/// A number is above its maximum.
public let NSValidationNumberTooLargeError = 1610
/// A number is below its minimum.
public let NSValidationNumberTooSmallError = 1620
/// A date is after its maximum.
public let NSValidationDateTooLateError = 1630
/// A date is before its minimum.
public let NSValidationDateTooSoonError = 1640
/// A date is invalid.
public let NSValidationInvalidDateError = 1650
/// A string is longer than its maximum length.
public let NSValidationStringTooLongError = 1660
/// A string is shorter than its minimum length.
public let NSValidationStringTooShortError = 1670
/// A string does not match its regular expression.
public let NSValidationStringPatternMatchingError = 1680
/// A URI is invalid.
public let NSValidationInvalidURIError = 1690
/// A managed object context could not be locked.
public let NSManagedObjectContextLockingError = 132_000
/// A persistent store coordinator could not be locked.
public let NSPersistentStoreCoordinatorLockingError = 132_010
/// A relationship points to an object that no longer exists.
public let NSManagedObjectReferentialIntegrityError = 133_000
/// An object refers to an object in another store.
public let NSManagedObjectExternalRelationshipError = 133_010
/// A save failed because of merge conflicts (optimistic locking).
public let NSManagedObjectMergeError = 133_020
/// A save failed because of uniqueness constraint conflicts.
public let NSManagedObjectConstraintMergeError = 133_021
/// The store type is unknown.
public let NSPersistentStoreInvalidTypeError = 134_000
/// The store's type does not match the type it was opened as.
public let NSPersistentStoreTypeMismatchError = 134_010
/// The store's schema does not match the model.
public let NSPersistentStoreIncompatibleSchemaError = 134_020
/// A store could not save.
public let NSPersistentStoreSaveError = 134_030
/// A save succeeded in some stores but not in all.
public let NSPersistentStoreIncompleteSaveError = 134_040
/// A save failed because of conflicts with the store.
public let NSPersistentStoreSaveConflictsError = 134_050
/// A general Core Data error.
public let NSCoreDataError = 134_060
/// A store operation failed.
public let NSPersistentStoreOperationError = 134_070
/// A store could not be opened.
public let NSPersistentStoreOpenError = 134_080
/// A store operation timed out.
public let NSPersistentStoreTimeoutError = 134_090
/// The store does not support the request type.
public let NSPersistentStoreUnsupportedRequestTypeError = 134_091
/// The store's entity version hashes do not match the model's.
public let NSPersistentStoreIncompatibleVersionHashError = 134_100
/// A migration failed.
public let NSMigrationError = 134_110
/// Migrated rows break a uniqueness constraint of the destination model.
public let NSMigrationConstraintViolationError = 134_111
/// A migration was cancelled (`NSMigrationManager.cancelMigrationWithError(_:)`).
public let NSMigrationCancelledError = 134_120
/// No model matching the store's version hashes was found, so the store can't be migrated.
public let NSMigrationMissingSourceModelError = 134_130
/// No mapping model from the store's model to the current one was found (and none was inferred).
public let NSMigrationMissingMappingModelError = 134_140
/// The migration manager could not open the source store.
public let NSMigrationManagerSourceStoreError = 134_150
/// The migration manager could not create or write the destination store.
public let NSMigrationManagerDestinationStoreError = 134_160
/// An entity migration policy failed.
public let NSEntityMigrationPolicyError = 134_170
/// SQLite reported an error.
public let NSSQLiteError = 134_180
/// No mapping model could be inferred between two models.
public let NSInferredMappingModelError = 134_190
/// Importing external records failed.
public let NSExternalRecordImportError = 134_200
/// A persistent history token given to a history request has expired (its transactions were
/// deleted).
public let NSPersistentHistoryTokenExpiredError = 134_301
