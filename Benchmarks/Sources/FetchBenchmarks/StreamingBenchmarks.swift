// The streaming fetch (`NSManagedObjectContext.objects(for:batchSize:)`) over the big store of
// the batch iteration, in a child process so that its peak memory is its own: main.swift runs
// `--stream-iteration <store>` through `streamIteration(path:)` and prints `streamingReport()`.

import BenchmarkSupport
import CoreData

#if canImport(Glibc)
    import Glibc
#endif

/// The batch size of the streaming run.
let streamBatchSize = 1_000

/// With `--stream-iteration <store>`: stream every employee of the store, reading the salary of
/// each, and print `<ms> <peak MB> <rows> <sum>` (as the other iteration modes); exits. Unsorted
/// unless `STREAM_SORT` names an attribute to sort by.
func streamIteration(path: String) -> Never {
    let start = clock.now
    let context = newContext(openStore(URL(fileURLWithPath: path)))
    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
    // STREAM_SORT=<attribute>: sorted by it (no index: each batch scans the table).
    if let key = environment["STREAM_SORT"] { request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)] }
    var total: Int64 = 0
    var rows = 0
    let failure: Error? = context.performAndWait {
        do {
            let employees = try context.objects(for: request, batchSize: streamBatchSize)
            for employee in employees {
                total &+= (employee.value(forKey: "salary") as? Int64) ?? 0
                rows += 1
            }
            return employees.error
        } catch {
            return error
        }
    }
    if let failure {
        print("error: \(failure)")
        exit(1)
    }
    print((clock.now - start).milliseconds, peakMegabytes(), rows, total)
    exit(0)
}

/// The streaming run over the big store (made by the batch iteration, in `folder`), as one
/// report line beside the raw C API's figures; a note when the batch runs were skipped.
func streamingReport(raw: (milliseconds: Double, megabytes: Double, rows: Int)) -> String {
    let url = folder.appendingPathComponent("Big.sqlite")
    guard batchObjectCount > 0, FileManager.default.fileExists(atPath: url.path) else {
        return "Streaming fetch: skipped (BATCH_OBJECTS=0)"
    }
    let stream = child("--stream-iteration", url)
    return String(
        format:
            "Streaming fetch, batches of %d over %d rows, salary read: %.0f ms, peak %.1f MB (goal ≤ 64 MB, flat in rows); "
            + "raw C API: %.0f ms, peak %.1f MB",
        streamBatchSize, stream.rows, stream.milliseconds, stream.megabytes, raw.milliseconds, raw.megabytes)
}
