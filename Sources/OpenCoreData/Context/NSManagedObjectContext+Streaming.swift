extension NSManagedObjectContext {
    /// The objects a fetch request matches, as a sequence that fetches them a batch at a time
    /// and keeps only the current batch: for jobs that walk millions of rows in flat memory.
    ///
    /// ```swift
    /// let request = NSFetchRequest<Employee>(entityName: "Employee")
    /// request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
    /// let employees = try context.objects(for: request, batchSize: 1_000)
    /// for employee in employees { total += employee.salary }
    /// if let error = employees.error { throw error }   // a store error ends the loop early
    /// ```
    ///
    /// Each batch is one store query for the rows after the last one delivered (keyset
    /// pagination), made into this context's objects as `fetch(_:)` makes them: an object
    /// already registered is returned as that same instance, with its unsaved changes; others
    /// are faults holding their row. The sequence holds neither the keys of every match nor
    /// past batches, and the context holds unchanged objects weakly, so objects of past batches
    /// are freed once the caller drops them. Use the sequence on the context's queue, as
    /// `fetch(_:)`; iterating it again runs the request again.
    ///
    /// What it honours: the predicate, the entity's sub-entities (`includesSubentities`), the
    /// sort descriptors (rows they consider equal come in primary-key order, which is also the
    /// order without sort descriptors, in every store: the SQLite store's `fetch(_:)` order; the
    /// in-memory store's `fetch(_:)` orders ties by insertion instead), `fetchLimit`, `fetchOffset`, `affectedStores`,
    /// `returnsObjectsAsFaults` and `shouldRefreshRefetchedObjects`. Sorts must be by
    /// attributes (key paths of to-one steps ending in one).
    ///
    /// Pending changes: the stream reads what the stores have (`includesPendingChanges` is
    /// ignored): unsaved inserted objects are not returned, changed objects are matched and
    /// ordered by their saved values, and objects deleted in this context are left out.
    ///
    /// Saves between batches (from this context or another): nothing stays open between
    /// batches, so each batch sees the store as it is when it runs. A row saved after the
    /// position reached (inserted, or changed to sort later) is delivered in a later batch; a
    /// row deleted before its batch is not delivered; a row changed to sort before the position
    /// is not delivered again.
    ///
    /// **Default:** `batchSize` 1000.
    ///
    /// **Differences from Apple:** an OpenCoreData addition; Apple's Core Data has no streaming
    /// fetch (`fetchBatchSize` there, and here, still holds every match's ID and an array of
    /// every object). A child context cannot stream, and sort descriptors are honoured within
    /// one store only (a request over several stores without sort descriptors streams them one
    /// after another).
    ///
    /// - Parameters:
    ///   - request: A fetch request of managed objects.
    ///   - batchSize: How many objects each store query fetches (at least 1).
    /// - Returns: The sequence; it fetches nothing until iterated.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` (`NSCoreDataError`) for a batch size under
    ///   1, a child context, no coordinator or store, a result type other than
    ///   `.managedObjectResultType`, or sorts over several stores; what `fetch(_:)` throws for an
    ///   unknown entity or key path. Errors of the store while iterating end the iteration and
    ///   are kept in `FetchedObjects.error`.
    public func objects<ResultType>(for request: NSFetchRequest<ResultType>, batchSize: Int = 1000) throws
        -> FetchedObjects<ResultType>
    {
        let request = request.copyRequest()
        let batchSize = batchSize
        // Checked now, so that a bad request throws here rather than ending an iteration.
        _ = try ObjectStreamCursor(request: request, batchSize: batchSize, context: self)
        return FetchedObjects(context: self, request: request, batchSize: batchSize)
    }

    /// The objects a fetch request matches, as an asynchronous sequence that fetches each batch
    /// on the context's queue (through `perform(_:)`) and keeps only the current batch.
    ///
    /// ```swift
    /// for try await employee in context.stream(request, batchSize: 1_000) {
    ///     await context.perform { total += employee.salary }
    /// }
    /// ```
    ///
    /// Results, order, memory, pending changes and saves between batches are as for
    /// `objects(for:batchSize:)`. The objects belong to the context: read them on its queue
    /// (inside `perform`, or on the main actor for a main-queue context), as objects returned
    /// from a `perform` block.
    ///
    /// **Default:** `batchSize` 1000.
    ///
    /// **Differences from Apple:** an OpenCoreData addition (see `objects(for:batchSize:)`).
    ///
    /// - Parameters:
    ///   - request: A fetch request of managed objects.
    ///   - batchSize: How many objects each store query fetches (at least 1).
    /// - Returns: The sequence; it fetches nothing until iterated. Its iterator's `next()`
    ///   throws what `objects(for:batchSize:)` throws (on the first call) and the store's errors.
    public func stream<ResultType>(_ request: NSFetchRequest<ResultType>, batchSize: Int = 1000) -> FetchedObjectStream<
        ResultType
    > {
        FetchedObjectStream(context: self, request: request.copyRequest(), batchSize: batchSize)
    }
}

/// Casts a batch of objects to a request's result type: the whole array at once when it is
/// already `[ResultType]`, else each object.
func typedBatch<ResultType>(_ objects: [NSManagedObject], as _: ResultType.Type) throws -> [ResultType] {
    try FetchResults.objects(objects).typed(as: ResultType.self)
}

/// The objects of a fetch request, a batch at a time: what
/// `NSManagedObjectContext.objects(for:batchSize:)` returns.
///
/// Each iteration runs the request afresh. A store error ends an iteration early; it is then
/// in `error` (and in the iterator's `error`), or thrown by the iterator's `nextObject()`.
///
/// **Differences from Apple:** an OpenCoreData addition.
public struct FetchedObjects<ResultType>: Sequence {
    let context: NSManagedObjectContext
    let request: NSFetchRequest<ResultType>
    let batchSize: Int
    private let lastError = ErrorBox()

    init(context: NSManagedObjectContext, request: NSFetchRequest<ResultType>, batchSize: Int) {
        self.context = context
        self.request = request
        self.batchSize = batchSize
    }

    /// The error that ended the latest iteration early; nil if none did.
    public var error: Error? { lastError.error }

    /// A new iteration: it runs the request from the start.
    public func makeIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// One pass over the objects; holds the current batch only.
    public struct Iterator: IteratorProtocol {
        private let sequence: FetchedObjects
        private var cursor: ObjectStreamCursor?
        private var batch: [ResultType] = []
        private var index = 0
        private var finished = false

        /// The error that ended this iteration early; nil if none did.
        public private(set) var error: Error?

        init(sequence: FetchedObjects) {
            self.sequence = sequence
        }

        /// The next object; nil at the end, or when an error ended the iteration (see `error`).
        public mutating func next() -> ResultType? {
            do {
                return try nextObject()
            } catch {
                return nil
            }
        }

        /// The next object, or nil at the end.
        ///
        /// - Throws: The store's error (or an unknown key the request names); the iteration
        ///   then ends.
        public mutating func nextObject() throws -> ResultType? {
            if index < batch.count {
                index += 1
                return batch[index - 1]
            }
            guard !finished else { return nil }
            // The past batch goes before the next is fetched: one batch alive at a time.
            batch = []
            index = 0
            do {
                if cursor == nil {
                    cursor = try ObjectStreamCursor(
                        request: sequence.request, batchSize: sequence.batchSize, context: sequence.context)
                    sequence.lastError.error = nil
                }
                guard let cursor else { return nil }
                batch = try typedBatch(try cursor.nextBatch(), as: ResultType.self)
            } catch {
                finished = true
                self.error = error
                sequence.lastError.error = error
                throw error
            }
            guard !batch.isEmpty else {
                finished = true
                cursor = nil
                return nil
            }
            index = 1
            return batch[0]
        }
    }
}

/// The error of a sequence's latest iteration, shared with its iterators.
final class ErrorBox {
    var error: Error?
}

/// The objects of a fetch request as an asynchronous sequence, a batch at a time, each batch
/// fetched on the context's queue: what `NSManagedObjectContext.stream(_:batchSize:)` returns.
///
/// Each iteration runs the request afresh; its iterator's `next()` throws the request's and the
/// store's errors.
///
/// **Differences from Apple:** an OpenCoreData addition.
public struct FetchedObjectStream<ResultType>: AsyncSequence {
    /// The objects the sequence delivers.
    public typealias Element = ResultType

    let context: NSManagedObjectContext
    let request: NSFetchRequest<ResultType>
    let batchSize: Int

    /// A new iteration: it runs the request from the start.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(context: context, request: request, batchSize: batchSize)
    }

    /// One pass over the objects; holds the current batch only.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let context: NSManagedObjectContext
        private let request: NSFetchRequest<ResultType>
        private let batchSize: Int
        private var cursor: ObjectStreamCursor?
        private var batch: [ResultType] = []
        private var index = 0
        private var finished = false

        init(context: NSManagedObjectContext, request: NSFetchRequest<ResultType>, batchSize: Int) {
            self.context = context
            self.request = request
            self.batchSize = batchSize
        }

        /// The next object, or nil at the end; the next batch is fetched on the context's queue.
        ///
        /// - Throws: What `objects(for:batchSize:)` throws (on the first call), or the store's
        ///   error; the iteration then ends.
        public mutating func next() async throws -> ResultType? {
            if index < batch.count {
                index += 1
                return batch[index - 1]
            }
            guard !finished else { return nil }
            batch = []
            index = 0
            let context = context
            let request = request
            let batchSize = batchSize
            let current = cursor
            do {
                let (cursor, objects) = try await context.performUnchecked { () throws -> (ObjectStreamCursor, [ResultType]) in
                    let cursor = try current ?? ObjectStreamCursor(request: request, batchSize: batchSize, context: context)
                    return (cursor, try typedBatch(try cursor.nextBatch(), as: ResultType.self))
                }
                self.cursor = cursor
                batch = objects
            } catch {
                finished = true
                throw error
            }
            guard !batch.isEmpty else {
                finished = true
                cursor = nil
                return nil
            }
            index = 1
            return batch[0]
        }
    }
}
