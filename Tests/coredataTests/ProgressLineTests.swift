import Testing

@testable import coredata

/// What the progress line of `copy` and `--migrate` says: rows done, rate and time left.
@Suite struct ProgressLineTests {
    @Test func rowsRateAndTimeLeft() {
        let line = ProgressLine(verb: "copying", rows: 1_000_000)
        #expect(line.text(fraction: 0, seconds: 0) == "copying: 0 of 1,000,000 rows (0%), 0 s so far")
        #expect(line.text(fraction: 0, seconds: 2.5) == "copying: 0 of 1,000,000 rows (0%), 3 s so far")
        #expect(
            line.text(fraction: 0.25, seconds: 10)
                == "copying: 250,000 of 1,000,000 rows (25%), 25,000 rows/s, 30 s left")
        #expect(
            line.text(fraction: 0.01, seconds: 30)
                == "copying: 10,000 of 1,000,000 rows (1%), 333 rows/s, 49 min 30 s left")
        #expect(line.text(fraction: 1, seconds: 40) == "copying: 1,000,000 of 1,000,000 rows (100%), 25,000 rows/s, 0 s left")
    }

    @Test func durationsAndGroups() {
        #expect(ProgressLine.duration(58.2) == "59 s")
        #expect(ProgressLine.duration(59.2) == "1 min 0 s")
        #expect(ProgressLine.duration(125) == "2 min 5 s")
        #expect(ProgressLine.duration(3 * 3600 + 61) == "3 h 1 min")
        #expect(ProgressLine.grouped(0) == "0")
        #expect(ProgressLine.grouped(999) == "999")
        #expect(ProgressLine.grouped(1000) == "1,000")
        #expect(ProgressLine.grouped(12_345_678) == "12,345,678")
    }
}
