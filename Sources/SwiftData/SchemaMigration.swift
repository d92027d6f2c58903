import OpenCoreData

/// One version of an app's models: the classes of that version (usually nested in the
/// conforming type) and its version number.
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { var name: String; init(name: String) { self.name = name } }
/// }
/// ```
public protocol VersionedSchema {
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
    /// This version's number.
    static var versionIdentifier: Schema.Version { get }
}

extension Schema {
    /// The schema of one version of an app's models.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

/// How a store written with an earlier version of an app's models becomes one of the latest:
/// the versions, oldest first, and a stage for each step between two of them.
///
/// `ModelContainer(for:migrationPlan:configurations:)` finds the version a store was written
/// with (by its entities' version hashes) and runs the stages from there to the version of the
/// container's schema (the plan's last when no version of the plan has its number). A step
/// with no stage of its own is lightweight.
public protocol SchemaMigrationPlan {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The steps between versions.
    static var stages: [MigrationStage] { get }
}

/// A step of a migration plan: from one version of the models to the next.
public enum MigrationStage: @unchecked Sendable {
    /// The store's tables change to the new version's (added, removed and renamed properties
    /// and entities); the data is carried over as it is.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A lightweight step with code of your own around it: `willMigrate` runs on a context of
    /// the old version (to change data the new version's constraints would refuse, and save),
    /// `didMigrate` on a context of the new one (to fill new properties, and save).
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }
}

/// Runs a migration plan's stages on one store.
struct SchemaMigration {
    let plan: any SchemaMigrationPlan.Type
    /// The version to migrate to (the container's schema's); the plan's last when it names none.
    let target: Schema.Version
    let configuration: ModelConfiguration

    /// Migrates the store to the target version; does nothing when there is no store yet or it
    /// is of that version (or later).
    func run() throws {
        let description = configuration.storeDescription
        guard description.type != NSInMemoryStoreType, let url = description.url,
            let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: description.type, at: url)
        else { return }
        let versions = plan.schemas
        guard
            let start = versions.lastIndex(where: {
                Schema(versionedSchema: $0).managedObjectModel.isConfiguration(
                    withName: nil, compatibleWithStoreMetadata: metadata)
            })
        else {
            throw NSError(
                domain: NSCocoaErrorDomain, code: NSMigrationMissingSourceModelError,
                userInfo: [
                    NSLocalizedFailureReasonErrorKey:
                        "The store at \(url.path) was written with none of the versions of \(plan)'s schemas, so it can't be migrated",
                    NSURLErrorKey: url,
                ])
        }
        let end = versions.lastIndex { $0.versionIdentifier == target } ?? versions.count - 1
        for index in versions.indices where index > start && index <= end {
            let from = versions[index - 1]
            let to = versions[index]
            let stage = plan.stages.first { $0.fromVersion.versionIdentifier == from.versionIdentifier }
            if case .custom(_, _, let willMigrate?, _) = stage {
                let context = ModelContext(
                    try ModelContainer(for: Schema(versionedSchema: from), configurations: [configuration]))
                try willMigrate(context)
            }
            try migrate(url: url, type: description.type, from: Schema(versionedSchema: from), to: Schema(versionedSchema: to))
            if case .custom(_, _, _, let didMigrate?) = stage {
                let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: to), configurations: [configuration]))
                try didMigrate(context)
            }
        }
    }

    /// The lightweight step: the store's tables and rows from one version's model to the next's.
    private func migrate(url: URL, type: String, from: Schema, to: Schema) throws {
        let mapping = try NSMappingModel.inferredMappingModel(
            forSourceModel: from.managedObjectModel, destinationModel: to.managedObjectModel)
        let manager = NSMigrationManager(sourceModel: from.managedObjectModel, destinationModel: to.managedObjectModel)
        try manager.migrateStore(
            from: url, sourceType: type, options: nil, with: mapping, toDestinationURL: url, destinationType: type,
            destinationOptions: nil)
    }
}
