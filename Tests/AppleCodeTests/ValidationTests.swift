import CoreData
import Foundation
import TestSupport
import XCTest

// The Pets model's classes as Xcode generates them, with the mechanical port (`@NSManaged` →
// `@Managed`), plus the validation code apps write: a per-key method with Apple's signature,
// called from an override of `validateValue(_:forKey:)`, and a clinic that records its
// deletion's lifecycle.

public class Owner: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Owner> {
        NSFetchRequest<Owner>(entityName: "Owner")
    }

    @Managed public var age: Int16
    @Managed public var born: Date?
    @Managed public var name: String?
    @Managed public var rating: NSNumber?
    @Managed public var pets: Set<Pet>?
}

public class Pet: NSManagedObject {
    @Managed public var name: String?
    @Managed public var clinic: Clinic?
    @Managed public var owner: Owner?

    public override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        try super.validateValue(value, forKey: key)
        if key == "name" { try validateName(value) }
    }

    /// A pet's name may be missing, but not empty.
    func validateName(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws {
        guard let name = value.pointee as? String, name.isEmpty else { return }
        throw NSError(domain: "PetErrors", code: 1, userInfo: [NSLocalizedDescriptionKey: "A pet's name can't be empty."])
    }
}

public class Clinic: NSManagedObject {
    @Managed public var title: String?
    @Managed public var patients: Set<Pet>?

    /// The lifecycle calls of a deletion, in order.
    var deletionSteps: [String] = []

    public override func prepareForDeletion() {
        super.prepareForDeletion()
        deletionSteps.append("prepareForDeletion")
    }

    public override func validateForDelete() throws {
        deletionSteps.append("validateForDelete")
        try super.validateForDelete()
    }

    /// A rule of the whole object, combined with the model's as Apple's documentation asks.
    public override func validateForInsert() throws {
        var errors: [NSError] = []
        do { try super.validateForInsert() } catch { errors.append(error as NSError) }
        if title == "Closed" {
            errors.append(NSError(domain: "ClinicErrors", code: 2, userInfo: [NSLocalizedDescriptionKey: "A new clinic can't be closed."]))
        }
        guard let first = errors.first else { return }
        if errors.count == 1 { throw first }
        let details = errors.flatMap { ($0.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [$0] }
        throw NSError(
            domain: NSCocoaErrorDomain, code: NSValidationMultipleErrorsError, userInfo: [NSDetailedErrorsKey: details])
    }
}

/// The Pets model from the test bundle, loaded once.
let petsModel: NSManagedObjectModel? = Bundle.module.url(forResource: "Pets", withExtension: "xcdatamodeld")
    .flatMap(NSManagedObjectModel.init(contentsOf:))

/// Every rule a model file can hold, enforced at save on every store with Apple's codes: one
/// failing value per rule, several at once, fixing and saving again, rules from code, per-key
/// methods, the deny rule and the deletion lifecycle, and random values saved exactly when an
/// independent check says they are valid.
final class ValidationTests: XCTestCase {
    /// The stores: in memory, SQLite, and PostgreSQL when a server is named (always under CI).
    static func storeTypes() throws -> [String] {
        [NSInMemoryStoreType, NSSQLiteStoreType] + (PostgresTestServer.isEnabled ? [NSPostgreSQLStoreType] : [])
    }

    /// Stores to drop when the test ends (PostgreSQL schemas, SQLite folders).
    private var cleanups: [() -> Void] = []

    override func tearDown() {
        cleanups.forEach { $0() }
        cleanups = []
        super.tearDown()
    }

    /// A container for the Pets model on a fresh store of `type`.
    func makeContainer(_ type: String) throws -> NSPersistentContainer {
        let model = try XCTUnwrap(petsModel, "Pets.xcdatamodeld is missing from the test bundle")
        let container = NSPersistentContainer(name: "Pets", managedObjectModel: model)
        let description = NSPersistentStoreDescription()
        description.type = type
        switch type {
        case NSSQLiteStoreType:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            description.url = folder.appendingPathComponent("Pets.sqlite")
            cleanups.append { try? FileManager.default.removeItem(at: folder) }
        case NSInMemoryStoreType:
            break
        default:
            let url = try PostgresTestServer.freshStoreURL()
            description.url = url
            cleanups.append { PostgresTestServer.destroy(url) }
        }
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// An owner every rule accepts.
    @discardableResult
    static func validOwner(in context: NSManagedObjectContext, name: String = "Ann") -> Owner {
        let owner = Owner(context: context)
        owner.name = name
        owner.age = 34
        owner.born = Date(timeIntervalSince1970: 86_400 * 365 * 20)
        owner.rating = 4.5
        return owner
    }

    /// How many rows of `entity` the store holds, read through a context of its own.
    static func storedCount(_ entity: String, _ container: NSPersistentContainer) throws -> Int {
        let context = container.newBackgroundContext()
        return try context.performAndWait { try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: entity)) }
    }

    /// The save's error, or a failure when it succeeds.
    static func saveError(_ context: NSManagedObjectContext, _ label: String, line: UInt = #line) -> NSError? {
        do {
            try context.save()
            XCTFail("\(label): the save succeeded", line: line)
            return nil
        } catch {
            return error as NSError
        }
    }

    // MARK: - One rule at a time

    /// A failing value for a rule: it changes a valid object (saved or inserted) and says how to
    /// make it valid again.
    struct Case {
        let label: String
        let code: Int
        let key: String
        /// Makes the context hold the failing change; returns the object at fault and the fix.
        let breakRule: (NSManagedObjectContext) -> (object: NSManagedObject, fix: () -> Void)
    }

    static let cases: [Case] = [
        Case(label: "age 200", code: NSValidationNumberTooLargeError, key: "age") { context in
            let owner = validOwner(in: context)
            owner.age = 200
            return (owner, { owner.age = 150 })
        },
        Case(label: "age -1", code: NSValidationNumberTooSmallError, key: "age") { context in
            let owner = validOwner(in: context)
            owner.age = -1
            return (owner, { owner.age = 0 })
        },
        Case(label: "rating 5.5", code: NSValidationNumberTooLargeError, key: "rating") { context in
            let owner = validOwner(in: context)
            owner.rating = 5.5
            return (owner, { owner.rating = 5 })
        },
        Case(label: "name A", code: NSValidationStringTooShortError, key: "name") { context in
            let owner = validOwner(in: context)
            owner.name = "A"
            return (owner, { owner.name = "Al" })
        },
        Case(label: "name Abcdefghijkl", code: NSValidationStringTooLongError, key: "name") { context in
            let owner = validOwner(in: context)
            owner.name = "Abcdefghijkl"
            return (owner, { owner.name = "Abcdefghij" })
        },
        Case(label: "name abc", code: NSValidationStringPatternMatchingError, key: "name") { context in
            let owner = validOwner(in: context)
            owner.name = "abc"
            return (owner, { owner.name = "Abc" })
        },
        Case(label: "no name", code: NSValidationMissingMandatoryPropertyError, key: "name") { context in
            let owner = validOwner(in: context)
            owner.name = nil
            return (owner, { owner.name = "Cy" })
        },
        Case(label: "born 2010", code: NSValidationDateTooLateError, key: "born") { context in
            let owner = validOwner(in: context)
            owner.born = Date(timeIntervalSince1970: 1_262_304_000)
            return (owner, { owner.born = Date(timeIntervalSinceReferenceDate: 0) })
        },
        Case(label: "born 1960", code: NSValidationDateTooSoonError, key: "born") { context in
            let owner = validOwner(in: context)
            owner.born = Date(timeIntervalSince1970: -315_619_200)
            return (owner, { owner.born = Date(timeIntervalSince1970: 0) })
        },
        Case(label: "a third pet", code: NSValidationRelationshipExceedsMaximumCountError, key: "pets") { context in
            let owner = validOwner(in: context)
            let pets = (0..<3).map { _ in Pet(context: context) }
            owner.pets = Set(pets)
            return (owner, { context.delete(pets[2]) })
        },
        Case(label: "one patient", code: NSValidationRelationshipLacksMinimumCountError, key: "patients") { context in
            let clinic = Clinic(context: context)
            clinic.patients = [Pet(context: context)]
            return (clinic, { clinic.patients?.first?.clinic = nil })
        },
    ]

    func testEachRuleRefusesItsValueOnEveryStoreAndTheFixedValueSaves() throws {
        for storeType in try Self.storeTypes() {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            Self.validOwner(in: context, name: "Kept")
            try context.save()
            for (index, testCase) in Self.cases.enumerated() {
                let label = "\(testCase.label) (\(storeType))"
                let (object, fix) = testCase.breakRule(context)
                let error = try XCTUnwrap(Self.saveError(context, label))
                XCTAssertEqual(error.domain, NSCocoaErrorDomain, label)
                XCTAssertEqual(error.code, testCase.code, "\(label): \(error)")
                XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, testCase.key, label)
                XCTAssertTrue(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === object, label)
                if testCase.code != NSValidationMissingMandatoryPropertyError {
                    XCTAssertNotNil(error.userInfo[NSValidationValueErrorKey], label)
                }
                XCTAssertFalse(error.localizedDescription.isEmpty, label)
                // Nothing was written; the changes are still there to fix.
                XCTAssertTrue(context.hasChanges, label)
                XCTAssertTrue(object.isInserted, label)
                XCTAssertEqual(try Self.storedCount("Owner", container), 1 + index, label)
                fix()
                XCTAssertNoThrow(try context.save(), label)
                XCTAssertFalse(context.hasChanges, label)
            }
            XCTAssertEqual(try Self.storedCount("Owner", container), 11, storeType)
            XCTAssertEqual(try Self.storedCount("Clinic", container), 1, storeType)
        }
    }

    /// A saved object changed to a bad value is refused too (`validateForUpdate()`), and keeps
    /// its stored value.
    func testAnUpdateToABadValueIsRefusedAndTheRowKeepsItsValue() throws {
        for storeType in try Self.storeTypes() {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            let owner = Self.validOwner(in: context)
            try context.save()
            owner.age = 151
            let error = try XCTUnwrap(Self.saveError(context, storeType))
            XCTAssertEqual(error.code, NSValidationNumberTooLargeError, storeType)
            XCTAssertTrue(owner.isUpdated, storeType)
            let other = container.newBackgroundContext()
            let stored = try other.performAndWait { try other.fetch(Owner.fetchRequest()).map(\.age) }
            XCTAssertEqual(stored, [34], storeType)
            owner.age = 150
            try context.save()
            XCTAssertEqual(try other.performAndWait { try other.fetch(Owner.fetchRequest()).map(\.age) }, [150], storeType)
        }
    }

    // MARK: - Several failures

    func testSeveralFailuresComeAsOneErrorWithEachUnderNSDetailedErrorsKey() throws {
        for storeType in try Self.storeTypes() {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            let first = Self.validOwner(in: context)
            first.age = 200
            first.name = "a"  // too short: the first rule it breaks is the only one reported
            let second = Self.validOwner(in: context)
            second.name = nil
            Self.validOwner(in: context, name: "Fine")
            let error = try XCTUnwrap(Self.saveError(context, storeType))
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError, storeType)
            XCTAssertEqual(CocoaError.Code(rawValue: error.code), .validationMultipleErrors)
            let detailed = try XCTUnwrap(error.userInfo[NSDetailedErrorsKey] as? [NSError], storeType)
            let found = detailed.map { error in
                "\((error.userInfo[NSValidationObjectErrorKey] as? Owner) === first ? "first" : "second").\(error.userInfo[NSValidationKeyErrorKey] ?? "?"):\(error.code)"
            }
            XCTAssertEqual(
                found.sorted(),
                ["first.age:\(NSValidationNumberTooLargeError)", "first.name:\(NSValidationStringTooShortError)",
                 "second.name:\(NSValidationMissingMandatoryPropertyError)"], storeType)
            XCTAssertEqual(try Self.storedCount("Owner", container), 0, storeType)
            first.age = 1
            first.name = "Bea"
            second.name = "Cy"
            try context.save()
            XCTAssertEqual(try Self.storedCount("Owner", container), 3, storeType)
        }
    }

    // MARK: - Validating by hand

    func testValidateForInsertAndValidateValueApplyTheSameRules() throws {
        let container = try makeContainer(NSInMemoryStoreType)
        let owner = Self.validOwner(in: container.viewContext)
        XCTAssertNoThrow(try owner.validateForInsert())
        owner.age = 151
        owner.name = "x"
        XCTAssertThrowsError(try owner.validateForInsert()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError)
            XCTAssertEqual((error.userInfo[NSDetailedErrorsKey] as? [NSError])?.count, 2)
        }
        // `validateValue(_:forKey:)` as apps call it, with Apple's pointer argument.
        var tooOld: AnyObject? = NSNumber(value: 151)
        XCTAssertThrowsError(try owner.validateValue(&tooOld, forKey: "age")) { error in
            XCTAssertEqual((error as NSError).code, NSValidationNumberTooLargeError)
            XCTAssertEqual((error as NSError).userInfo[NSValidationValueErrorKey] as? NSNumber, 151)
        }
        var good: AnyObject? = "Dora" as NSString
        XCTAssertNoThrow(try owner.validateValue(&good, forKey: "name"))
        var lowercase: AnyObject? = "dora" as NSString
        XCTAssertThrowsError(try owner.validateValue(&lowercase, forKey: "name")) { error in
            XCTAssertEqual((error as NSError).code, NSValidationStringPatternMatchingError)
            XCTAssertNotNil((error as NSError).userInfo[NSValidationPredicateErrorKey] as? NSPredicate)
        }
        var none: AnyObject?
        XCTAssertThrowsError(try owner.validateValue(&none, forKey: "name")) { error in
            XCTAssertEqual(CocoaError.Code(rawValue: (error as NSError).code), .validationMissingMandatoryProperty)
        }
        XCTAssertThrowsError(try owner.validateValue(&none, forKey: "nothing")) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectValidationError)
        }
    }

    /// A per-key method, called from the subclass's `validateValue(_:forKey:)` override, refuses
    /// a value at save like the model's rules.
    func testPerKeyValidationMethodsRunAtSave() throws {
        for storeType in try Self.storeTypes() {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            let pet = Pet(context: context)
            pet.name = ""
            let error = try XCTUnwrap(Self.saveError(context, storeType))
            XCTAssertEqual(error.domain, "PetErrors", storeType)
            XCTAssertEqual(error.localizedDescription, "A pet's name can't be empty.", storeType)
            pet.name = "Rex"
            try context.save()
            XCTAssertEqual(try Self.storedCount("Pet", container), 1, storeType)
        }
    }

    /// Rules built in code: a warning that is a string is the error's message, with Apple's
    /// generic code.
    func testRulesBuiltInCodeReportTheirWarnings() throws {
        let entity = NSEntityDescription()
        entity.name = "Reading"
        let level = NSAttributeDescription()
        level.name = "level"
        level.attributeType = .doubleAttributeType
        level.setValidationPredicates(
            [NSPredicate(format: "SELF > 0"), NSPredicate(format: "SELF < 10")],
            withValidationWarnings: ["The level must be positive.", "The level must be under 10."])
        entity.properties = [level]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let container = NSPersistentContainer(name: "Readings", managedObjectModel: model)
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        container.loadPersistentStores { _, error in XCTAssertNil(error) }
        let reading = NSEntityDescription.insertNewObject(forEntityName: "Reading", into: container.viewContext)
        for (value, message) in [(-1.0, "The level must be positive."), (12.0, "The level must be under 10.")] {
            reading.setValue(value, forKey: "level")
            let error = try XCTUnwrap(Self.saveError(container.viewContext, "level \(value)"))
            XCTAssertEqual(error.code, NSManagedObjectValidationError)
            XCTAssertEqual(error.localizedDescription, message)
            XCTAssertEqual(
                (error.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)?.predicateFormat, value < 0 ? "SELF > 0" : "SELF < 10")
        }
        reading.setValue(5.0, forKey: "level")
        XCTAssertNoThrow(try container.viewContext.save())
    }

    /// An override of `validateForInsert()` adds its own error to the model's, and a save
    /// reports both.
    func testAnOverrideOfValidateForInsertAddsItsErrors() throws {
        for storeType in try Self.storeTypes() {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            let clinic = Clinic(context: context)
            clinic.title = "Closed"
            clinic.patients = [Pet(context: context)]  // fewer than the minimum of 2
            let error = try XCTUnwrap(Self.saveError(context, storeType))
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError, storeType)
            let detailed = try XCTUnwrap(error.userInfo[NSDetailedErrorsKey] as? [NSError], storeType)
            XCTAssertEqual(
                detailed.map { "\($0.domain):\($0.code)" }.sorted(),
                ["ClinicErrors:2", "\(NSCocoaErrorDomain):\(NSValidationRelationshipLacksMinimumCountError)"], storeType)
            clinic.title = "Open"
            clinic.patients = [Pet(context: context), Pet(context: context)]
            XCTAssertNoThrow(try context.save(), storeType)
        }
    }

    // MARK: - Deletion

    func testTheDenyRuleRefusesADeletionUntilItsObjectsAreGoneAndRunsAfterPrepareForDeletion() throws {
        for storeType in try Self.storeTypes() {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            let clinic = Clinic(context: context)
            clinic.title = "North"
            let patients = [Pet(context: context), Pet(context: context)]
            clinic.patients = Set(patients)
            try context.save()
            context.delete(clinic)
            let error = try XCTUnwrap(Self.saveError(context, storeType))
            XCTAssertEqual(error.code, NSValidationRelationshipDeniedDeleteError, storeType)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "patients", storeType)
            XCTAssertEqual(clinic.deletionSteps, ["prepareForDeletion", "validateForDelete"], storeType)
            XCTAssertEqual(try Self.storedCount("Clinic", container), 1, storeType)
            XCTAssertTrue(clinic.isDeleted, storeType)
            // With its patients deleted in the same save, the clinic may go.
            patients.forEach(context.delete)
            try context.save()
            XCTAssertEqual(try Self.storedCount("Clinic", container), 0, storeType)
            XCTAssertEqual(try Self.storedCount("Pet", container), 0, storeType)
        }
    }

    // MARK: - Error codes

    /// Every Core Data error code has its `CocoaError.Code` member, as apps match them.
    func testEveryCoreDataErrorCodeHasItsCocoaErrorMember() {
        let members: [(CocoaError.Code, Int)] = [
            (.managedObjectValidation, 1550), (.managedObjectConstraintValidation, 1551), (.validationMultipleErrors, 1560),
            (.validationMissingMandatoryProperty, 1570), (.validationRelationshipLacksMinimumCount, 1580),
            (.validationRelationshipExceedsMaximumCount, 1590), (.validationRelationshipDeniedDelete, 1600),
            (.validationNumberTooLarge, 1610), (.validationNumberTooSmall, 1620), (.validationDateTooLate, 1630),
            (.validationDateTooSoon, 1640), (.validationInvalidDate, 1650), (.validationStringTooLong, 1660),
            (.validationStringTooShort, 1670), (.validationStringPatternMatching, 1680), (.validationInvalidURI, 1690),
            (.managedObjectContextLocking, 132_000), (.persistentStoreCoordinatorLocking, 132_010),
            (.managedObjectReferentialIntegrity, 133_000), (.managedObjectExternalRelationship, 133_010),
            (.managedObjectMerge, 133_020), (.managedObjectConstraintMerge, 133_021), (.persistentStoreInvalidType, 134_000),
            (.persistentStoreTypeMismatch, 134_010), (.persistentStoreIncompatibleSchema, 134_020),
            (.persistentStoreSave, 134_030), (.persistentStoreIncompleteSave, 134_040), (.persistentStoreSaveConflicts, 134_050),
            (.coreData, 134_060), (.persistentStoreOperation, 134_070), (.persistentStoreOpen, 134_080),
            (.persistentStoreTimeout, 134_090), (.persistentStoreUnsupportedRequestType, 134_091),
            (.persistentStoreIncompatibleVersionHash, 134_100), (.migration, 134_110), (.migrationConstraintViolation, 134_111),
            (.migrationCancelled, 134_120), (.migrationMissingSourceModel, 134_130), (.migrationMissingMappingModel, 134_140),
            (.migrationManagerSourceStore, 134_150), (.migrationManagerDestinationStore, 134_160),
            (.entityMigrationPolicy, 134_170), (.sqlite, 134_180), (.inferredMappingModel, 134_190),
            (.externalRecordImport, 134_200), (.persistentHistoryTokenExpired, 134_301),
        ]
        for (member, raw) in members { XCTAssertEqual(member.rawValue, raw) }
        XCTAssertEqual(Set(members.map(\.1)).count, members.count)
        // The migration code a real client names, caught as apps catch it.
        let error: Error = NSError(domain: NSCocoaErrorDomain, code: NSMigrationMissingSourceModelError)
        guard let cocoa = error as? CocoaError, cocoa.code == .migrationMissingSourceModel else {
            return XCTFail("\(error) is not caught as .migrationMissingSourceModel")
        }
    }

    // MARK: - Rows deleted elsewhere

    /// An owner another container deleted reads, through its typed properties, as Apple's
    /// inaccessible faults do: nil, and 0 for a scalar; the context goes on and saves.
    func testAnObjectDeletedByAnotherContainerReadsNilAndZero() throws {
        for storeType in try Self.storeTypes() where storeType != NSInMemoryStoreType {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            Self.validOwner(in: context, name: "Gone")
            Self.validOwner(in: context, name: "Kept")
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Owner")
            request.resultType = .managedObjectIDResultType
            request.predicate = NSPredicate(format: "name == %@", "Gone")
            let goneID = try XCTUnwrap(try context.fetch(request).first)
            let gone = try XCTUnwrap(context.object(with: goneID) as? Owner)

            // Another process or server with the same store.
            let other = NSPersistentContainer(name: "Pets", managedObjectModel: container.managedObjectModel)
            other.persistentStoreDescriptions = container.persistentStoreDescriptions
            other.loadPersistentStores { _, error in XCTAssertNil(error) }
            let otherContext = other.newBackgroundContext()
            try otherContext.performAndWait {
                let byName: NSFetchRequest<Owner> = Owner.fetchRequest()
                byName.predicate = NSPredicate(format: "name == %@", "Gone")
                try otherContext.fetch(byName).forEach(otherContext.delete)
                try otherContext.save()
            }

            XCTAssertNil(gone.name, storeType)
            XCTAssertEqual(gone.age, 0, storeType)
            XCTAssertNil(gone.born, storeType)
            XCTAssertEqual(gone.pets?.count ?? 0, 0, storeType)
            XCTAssertTrue(gone.isDeleted, storeType)
            let all: NSFetchRequest<Owner> = Owner.fetchRequest()
            let kept = try XCTUnwrap(try context.fetch(all).first { $0.name == "Kept" })
            kept.age = 35
            XCTAssertNoThrow(try context.save(), storeType)
            XCTAssertEqual(try Self.storedCount("Owner", container), 1, storeType)
        }
    }

    // MARK: - Random values

    /// Owners with random values, in and out of their rules: a save succeeds exactly when a check
    /// written here from the model file's numbers passes, and a refused save reports each bad
    /// property once and writes nothing.
    func testRandomValuesSaveExactlyWhenEveryRuleHolds() throws {
        let goodNames = ["Al", "Bob", "Abcdefghij", "Zoe", "Eve"]
        let badNames: [String?] = [nil, "", "A", "bob", "Abcdefghijk", "Ann Lee", "B1"]
        let earliest = Date(timeIntervalSince1970: 0), latest = Date(timeIntervalSinceReferenceDate: 0)
        /// The codes the rules give for a name (nil when it is valid): required, 2…10, [A-Z][a-z]*.
        func nameCode(_ name: String?) -> Int? {
            guard let name else { return NSValidationMissingMandatoryPropertyError }
            if name.count < 2 { return NSValidationStringTooShortError }
            if name.count > 10 { return NSValidationStringTooLongError }
            let first = name.unicodeScalars.first.map { ("A"..."Z").contains($0) } ?? false
            let rest = name.unicodeScalars.dropFirst().allSatisfy { ("a"..."z").contains($0) }
            return first && rest ? nil : NSValidationStringPatternMatchingError
        }
        for storeType in try Self.storeTypes() {
            var random = SplitMix64(seed: 29)
            func below(_ bound: Int) -> Int { random.next(below: bound) }
            let container = try makeContainer(storeType)
            let context = container.viewContext
            var saved = 0
            let rounds = storeType == NSInMemoryStoreType ? 400 : 150
            for round in 0..<rounds {
                var expected: [String] = []
                var tags: [ObjectIdentifier: String] = [:]
                var inserted = 0
                for index in 0..<(1 + below(3)) {
                    let owner = Owner(context: context)
                    inserted += 1
                    let tag = "\(index)"
                    // Each value breaks its rules about one time in eight, so that about half the
                    // saves succeed.
                    let name = below(8) == 0 ? badNames[below(badNames.count)] : goodNames[below(5)]
                    owner.name = name
                    if let code = nameCode(name) { expected.append("\(tag).name:\(code)") }
                    let age = Int16(below(8) == 0 ? [-20, -1, 151, 200][below(4)] : below(151))
                    owner.age = age
                    if age < 0 { expected.append("\(tag).age:\(NSValidationNumberTooSmallError)") }
                    if age > 150 { expected.append("\(tag).age:\(NSValidationNumberTooLargeError)") }
                    if below(4) > 0 {
                        let days = below(8) == 0 ? [-1, -3_000, 11_324, 20_000][below(4)] : below(11_323)
                        let born = Date(timeIntervalSince1970: Double(days) * 86_400)
                        owner.born = born
                        if born < earliest { expected.append("\(tag).born:\(NSValidationDateTooSoonError)") }
                        if born > latest { expected.append("\(tag).born:\(NSValidationDateTooLateError)") }
                    }
                    if below(3) > 0 {
                        let rating = below(8) == 0 ? [0, 0.25, 5.5, 6][below(4)] : Double(1 + below(10)) / 2
                        owner.rating = NSNumber(value: rating)
                        if rating < 0.5 { expected.append("\(tag).rating:\(NSValidationNumberTooSmallError)") }
                        if rating > 5 { expected.append("\(tag).rating:\(NSValidationNumberTooLargeError)") }
                    }
                    let petCount = below(8) == 0 ? 3 : below(3)
                    owner.pets = Set((0..<petCount).map { _ in Pet(context: context) })
                    if petCount > 2 { expected.append("\(tag).pets:\(NSValidationRelationshipExceedsMaximumCountError)") }
                    tags[ObjectIdentifier(owner)] = tag
                }
                let label = "round \(round) (\(storeType))"
                do {
                    try context.save()
                    XCTAssertEqual(expected, [], "\(label): saved")
                    saved += inserted
                } catch {
                    let error = error as NSError
                    let errors =
                        error.code == NSValidationMultipleErrorsError
                        ? error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? [] : [error]
                    let found = errors.map { error -> String in
                        let owner = error.userInfo[NSValidationObjectErrorKey] as? Owner
                        return "\(owner.flatMap { tags[ObjectIdentifier($0)] } ?? "?").\(error.userInfo[NSValidationKeyErrorKey] ?? "?"):\(error.code)"
                    }
                    XCTAssertEqual(found.sorted(), expected.sorted(), label)
                    context.rollback()
                }
                XCTAssertFalse(context.hasChanges, label)
            }
            XCTAssertEqual(try Self.storedCount("Owner", container), saved, storeType)
            XCTAssertGreaterThan(saved, 0, storeType)
        }
    }
}
