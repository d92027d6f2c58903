import OpenPredicate
import Dispatch

/// Makes an actor work with models off the main actor: it gets `modelContainer`,
/// `modelContext` (a context of its own) and `init(modelContainer:)`, and its methods run on
/// that context's serial executor.
///
/// ```swift
/// @ModelActor
/// actor TripImporter {
///     func importTrips(_ names: [String]) throws {
///         for name in names { modelContext.insert(Trip(name: name)) }
///         try modelContext.save()
///     }
/// }
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init(modelContainer:)))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenCoreDataMacros", type: "ModelActorMacro")

/// An actor whose work runs on a model executor, with that executor's context.
public protocol ModelActor: Actor {
    /// The container the actor's context works on.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on, which owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: the model executor's.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialModelExecutor else {
            AppleException.internalInconsistency("A model actor's executor must be a SerialModelExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The actor's model with identifier `id` if it is of type `T` (from the context, else from
    /// the store); nil otherwise.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.registeredModel(for: id) ?? (modelContext.existingModel(for: id) as? T)
    }
}

/// What runs a model actor's work, with its context.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the executor's work uses.
    var modelContext: ModelContext { get }
}

/// A model executor that runs its work one job at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor of `@ModelActor` actors: jobs run one at a time on a queue of their own, with
/// one context.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// The executor's context: used only by its jobs.
    public let modelContext: ModelContext
    private let queue = DispatchQueue(label: "DefaultSerialModelExecutor")

    /// An executor for `modelContext`.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
    }

    /// Runs `job` after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}
