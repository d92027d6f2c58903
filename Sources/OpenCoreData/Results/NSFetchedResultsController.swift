import Foundation
import OpenPredicate
import OpenStoreCore

/// A fetch request's results, sorted and divided into sections, kept current as the context's
/// objects change, with each change reported to a delegate.
///
/// ```swift
/// let request = NSFetchRequest<Employee>(entityName: "Employee")
/// request.sortDescriptors = [NSSortDescriptor(key: "department", ascending: true),
///                            NSSortDescriptor(key: "name", ascending: true)]
/// let controller = NSFetchedResultsController(
///     fetchRequest: request, managedObjectContext: context,
///     sectionNameKeyPath: "department", cacheName: nil)
/// controller.delegate = feed          // reports inserts, deletes, moves and updates
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(row: 0, section: 0))
/// ```
///
/// Three modes, as on Apple:
/// - **no delegate:** `performFetch()` takes a snapshot; later changes are not followed;
/// - **a delegate:** the results follow the context's changes — its own (announced at
///   `processPendingChanges()`, at the end of each `perform` block and when saving), the saves
///   of other contexts it merges (`mergeChanges(fromContextDidSave:)`,
///   `automaticallyMergesChangesFromParent`, objects still faults and objects it never loaded
///   included), refreshes (`refresh(_:mergeChanges:)`), rollbacks; `reset()` reports every
///   object deleted, and the controller needs `performFetch()` again;
/// - **a delegate and a cache name:** the same, and `performFetch()` keeps the results in a
///   file that a later `performFetch()`, after a restart too, reads instead of fetching while
///   the stores have not changed (see `cacheName`).
///
/// Rules, as on Apple: the request needs at least one sort descriptor; sections follow the first
/// sort descriptor (the section key path is that descriptor's key, or one whose order agrees
/// with it); the controller, its results and its delegate are used on the context's queue.
/// An object whose change does not move it relative to the others (its predicate, sort and
/// section values, or changes that leave its place) is reported as an update, never as a move.
///
/// **Differences from Apple:** the errors Apple raises for a request without sort descriptors
/// or with results out of section order are thrown by `performFetch()` instead. A change to an
/// object that another object's sort or section key path reaches through a relationship
/// (`department.name`) is not followed, as on Apple. With a `fetchLimit` or `fetchOffset`, each
/// change that concerns the fetched entity fetches the window again (an object leaving it lets
/// another one in, which only the store knows).
/// See [NSFetchedResultsController](https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller).
open class NSFetchedResultsController<ResultType>: NSObject {
    /// The state, shared with the view given to the delegate.
    let core: FetchedResultsCore
    /// The view of this controller given to the delegate, when `ResultType` is not
    /// `NSFetchRequestResult` (the controller itself otherwise).
    private var delegateView: NSFetchedResultsController<NSFetchRequestResult>?
    private var typedObjects: (generation: Int, objects: [ResultType])?

    /// The fetch request the controller runs. Change its predicate or sort descriptors, then
    /// call `performFetch()` again to follow the new request.
    public let fetchRequest: NSFetchRequest<ResultType>

    /// Creates a controller; nothing is fetched until `performFetch()`.
    ///
    /// - Parameters:
    ///   - fetchRequest: The request, with at least one sort descriptor and managed object
    ///     results.
    ///   - context: The context that runs the request and whose changes are followed.
    ///   - sectionNameKeyPath: The key path of the objects' section names; nil for one section
    ///     holding every object.
    ///   - name: The name of the controller's cache (see `cacheName`); nil for none.
    public init(
        fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
        sectionNameKeyPath: String?, cacheName name: String?
    ) {
        self.fetchRequest = fetchRequest
        core = FetchedResultsCore(
            context: context, request: fetchRequest, sectionNameKeyPath: sectionNameKeyPath, cacheName: name,
            fetch: {
                try context.fetch(fetchRequest).map { result in
                    guard let object = result as? NSManagedObject else {
                        throw CoreDataError.make(
                            code: NSCoreDataError, reason: "NSFetchedResultsController tracks managed objects, not \(result)")
                    }
                    return object
                }
            },
            makePlan: {
                guard let coordinator = context.persistentStoreCoordinator else {
                    throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
                }
                return try FetchPlanBuilder(model: coordinator.managedObjectModel, schema: coordinator.schema)
                    .plan(for: fetchRequest)
            })
        super.init()
        if let untyped = self as? NSFetchedResultsController<NSFetchRequestResult> {
            core.reportingController = untyped
        } else {
            let view = NSFetchedResultsController<NSFetchRequestResult>(
                viewOf: core, request: fetchRequest.copyRequest(as: NSFetchRequestResult.self))
            delegateView = view
            core.reportingController = view
        }
        core.defaultIndexTitle = { [weak self] name in
            self?.sectionIndexTitle(forSectionName: name) ?? FetchedResultsCore.capitalizedFirstLetter(name)
        }
    }

    /// A view of another controller's state, for its delegate.
    private init(viewOf core: FetchedResultsCore, request: NSFetchRequest<ResultType>) {
        self.core = core
        fetchRequest = request
        super.init()
    }

    // MARK: - Configuration

    /// The context that runs the request.
    public var managedObjectContext: NSManagedObjectContext { core.context }

    /// The key path of the section names; nil when every object is in one section.
    public var sectionNameKeyPath: String? { core.sectionNameKeyPath }

    /// The name of the controller's cache, or nil for none.
    ///
    /// With a name, `performFetch()` keeps the results and sections in a file under it (in
    /// `OpenCoreData/FetchedResultsCaches` of the user's caches folder), and a later
    /// `performFetch()` — in another process too — lays them out from the file without fetching
    /// or loading an object, as long as the file provably holds what a fetch would return: the
    /// same request and section key path (a changed request refuses the cache, Apple's rule),
    /// no write to the stores' rows of the entity since, and no unsaved change in the context.
    /// Otherwise it fetches and writes the file anew. Objects laid out from a cache load a
    /// batch at a time as they are read.
    ///
    /// **Differences from Apple:** Apple trusts its cache until told otherwise
    /// (`deleteCache(withName:)`); this one checks the stores first (one aggregate query per
    /// table). In-memory stores have nothing to check against and use no cache.
    public var cacheName: String? { core.cacheName }

    /// The object told about changes. With a delegate, the controller follows the context's
    /// changes; without one, its results are a snapshot. Set it before `performFetch()`.
    ///
    /// **Default:** nil. Held weakly.
    public var delegate: NSFetchedResultsControllerDelegate? {
        get { core.delegate }
        set { core.delegate = newValue }
    }

    /// Deletes the cache file of a name (see `cacheName`), or every cache file when `name` is
    /// nil.
    open class func deleteCache(withName name: String?) {
        FetchedResultsCache.delete(named: name)
    }

    // MARK: - Fetching

    /// Runs the fetch request and lays out its results in sections; with a delegate, the
    /// controller follows changes from then on.
    ///
    /// - Throws: The fetch's error; an `NSError` when the request has no sort descriptor, does
    ///   not return managed objects, or returns objects out of section order (a section name
    ///   that comes back after another).
    open func performFetch() throws {
        try core.performFetch()
    }

    /// The fetched objects, in order; nil before `performFetch()`.
    public var fetchedObjects: [ResultType]? {
        guard core.hasFetched || core.generation > 0 else { return nil }
        if let typedObjects, typedObjects.generation == core.generation { return typedObjects.objects }
        let objects = core.layout.objects.compactMap { $0 as? ResultType }
        typedObjects = (core.generation, objects)
        return objects
    }

    /// The object at an index path (`[section, row]`).
    ///
    /// Stops the process with Apple's `NSRangeException` reason when the index path names no
    /// object; check `sections` first for index paths that come from users.
    open func object(at indexPath: IndexPath) -> ResultType {
        guard let index = core.layout.index(of: indexPath), let object = core.layout.objects[index] as? ResultType else {
            let row = indexPath.count > 1 ? indexPath[1] : 0
            let section = indexPath.count > 0 ? indexPath[0] : 0
            AppleException.raise("NSRangeException", reason: "no object at index \(row) in section at index \(section)")
        }
        return object
    }

    /// The index path of an object in the results, or nil.
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let object = object as? NSManagedObject, let index = core.layout.positions[ObjectIdentifier(object)] else {
            return nil
        }
        return core.layout.indexPath(at: index)
    }

    // MARK: - Sections

    /// The sections, in order; nil before `performFetch()`. Without a section key path there
    /// is exactly one, named "", even when no object matched.
    public var sections: [NSFetchedResultsSectionInfo]? {
        guard core.hasFetched || core.generation > 0 else { return nil }
        return core.sections()
    }

    /// The index title of a section name; the delegate's
    /// `controller(_:sectionIndexTitleForSectionName:)` takes precedence.
    ///
    /// **Default:** the first letter of the name, capitalized; nil for "".
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        FetchedResultsCore.capitalizedFirstLetter(sectionName)
    }

    /// The index titles of the sections, in section order, each once.
    open var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The section an index title leads to: the first section with that index title.
    ///
    /// **Default:** when no section has the title, the section at `sectionIndex`, kept within
    /// the sections (0 when there are none).
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let sections = sections ?? []
        if let index = sections.firstIndex(where: { $0.indexTitle == title }) { return index }
        return max(0, min(sectionIndex, sections.count - 1))
    }
}
