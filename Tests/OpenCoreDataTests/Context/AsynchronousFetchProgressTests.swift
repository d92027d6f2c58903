import Foundation
import OpenCoreData
import OpenStoreCore
import TestSupport
import Testing

/// `NSAsynchronousFetchRequest`'s progress and cancellation on every store: rows counted as the
/// store reads them, `estimatedResultCount` as the total, a child of the caller's current
/// progress; a cancelled request never runs, or stops where the store has read to.
struct AsynchronousFetchProgressTests {
    /// The fixture with 2,000 more departments (2,002 in all).
    static func fixture(_ storeType: String) throws -> ContextFixture {
        let fixture = try ContextFixture(storeType: storeType)
        try fixture.context.performAndWait {
            for number in 1...2_000 {
                let department = NSEntityDescription.insertNewObject(forEntityName: "Department", into: fixture.context)
                department.setValue("D\(number)", forKey: "title")
            }
            try fixture.context.save()
            fixture.context.reset()
        }
        return fixture
    }

    /// The progress's total is the estimate while the fetch runs, and ends complete: at the rows
    /// read without an estimate, at the estimate with one; a parent progress completes with it.
    @Test(arguments: ContextFixture.storeTypes)
    func progressCountsTheRowsAndEndsComplete(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        for estimate in [0, 1_000, 5_000] {
            let parent = Progress(totalUnitCount: 1)
            // The context's queue is busy until the progress has been looked at.
            let busy = DispatchSemaphore(value: 0)
            fixture.context.perform { busy.wait() }
            let finished = DispatchSemaphore(value: 0)
            var count = -1
            let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Department")) {
                count = $0.finalResult?.count ?? -1
                finished.signal()
            }
            request.estimatedResultCount = estimate
            parent.becomeCurrent(withPendingUnitCount: 1)
            let result = try #require(try fixture.context.execute(request) as? NSPersistentStoreAsynchronousResult)
            parent.resignCurrent()
            #expect(result.progress?.totalUnitCount == (estimate > 0 ? Int64(estimate) : -1))
            #expect(result.progress?.completedUnitCount == 0)
            busy.signal()
            finished.wait()
            #expect(count == 2_002)
            let total: Int64 = estimate > 0 ? Int64(estimate) : 2_002
            #expect(result.progress?.totalUnitCount == total, "estimate \(estimate)")
            #expect(result.progress?.completedUnitCount == total, "estimate \(estimate)")
            #expect(parent.fractionCompleted == 1, "estimate \(estimate)")
            #expect(result.operationError == nil)
        }
    }

    /// While rows arrive, the count is the rows read so far, a run at a time, up to the total.
    @Test(arguments: ContextFixture.storeTypes)
    func theCountRisesAsTheStoreReadsRows(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        var reports: [Int] = []
        let watch = FetchProgress { rows in
            reports.append(rows)
            return true
        }
        let context = fixture.context
        let objects = try context.performAndWait {
            try FetchProgress.$current.withValue(watch) {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department"))
            }
        }
        #expect(objects.count == 2_002)
        #expect(reports.reduce(0, +) == 2_002)
        // SQL stores report each run of rows as they read it; the in-memory store has them at once.
        let run = FetchProgress.reportInterval
        #expect(
            reports == (storeType == NSInMemoryStoreType ? [2_002] : Array(repeating: run, count: 2_002 / run) + [2_002 % run]))
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aRequestCancelledBeforeItRunsNeverRuns(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        // The context's queue is busy until the request has been cancelled.
        let busy = DispatchSemaphore(value: 0)
        fixture.context.perform { busy.wait() }
        var called = false
        let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Department")) { _ in
            called = true
        }
        let result = try #require(try fixture.context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject>)
        result.cancel()
        busy.signal()
        fixture.context.performAndWait {}
        #expect(!called)
        #expect(result.finalResult == nil)
        #expect((result.operationError as NSError?)?.code == NSUserCancelledError)
        #expect(result.progress?.isCancelled == true)
        #expect(result.progress?.completedUnitCount == 0)
        #expect(fixture.context.performAndWait { fixture.context.registeredObjects.isEmpty })
    }

    /// A cancelled parent progress cancels the request as its own `cancel()` does.
    @Test func cancellingTheParentProgressCancelsTheRequest() throws {
        let fixture = try Self.fixture(NSSQLiteStoreType)
        let parent = Progress(totalUnitCount: 1)
        let busy = DispatchSemaphore(value: 0)
        fixture.context.perform { busy.wait() }
        parent.becomeCurrent(withPendingUnitCount: 1)
        let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Department"))
        let result = try fixture.context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject>
        parent.resignCurrent()
        parent.cancel()
        busy.signal()
        fixture.context.performAndWait {}
        #expect(result?.progress?.isCancelled == true)
        #expect(result?.finalResult == nil)
        #expect((result?.operationError as NSError?)?.code == NSUserCancelledError)
    }

    /// What a cancel while the rows arrive does, made exact: the watcher stops the fetch at its
    /// first report. SQL stores have read one run of rows then; the in-memory store has its rows
    /// at once. The fetch throws, and the context has made no object.
    @Test(arguments: ContextFixture.storeTypes)
    func theStoreStopsReadingWhereTheWatcherSaysStop(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        var reports: [Int] = []
        let watch = FetchProgress { rows in
            reports.append(rows)
            return false
        }
        let context = fixture.context
        let thrown: Error? = context.performAndWait {
            do {
                _ = try FetchProgress.$current.withValue(watch) {
                    try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department"))
                }
                return nil
            } catch {
                return error
            }
        }
        #expect(thrown is FetchCancelledError, "\(String(describing: thrown))")
        #expect(reports == [storeType == NSInMemoryStoreType ? 2_002 : FetchProgress.reportInterval])
        #expect(context.performAndWait { context.registeredObjects.isEmpty })
        // Without a watcher, the same fetch reads every row.
        #expect(
            try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Department")) }
                == 2_002)
    }
}
