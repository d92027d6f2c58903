import Testing
@testable import OpenPredicate

/// Collects answers from concurrent iterations.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var wrong = 0
    func record(_ correct: Bool) {
        lock.lock()
        if !correct { wrong += 1 }
        lock.unlock()
    }
    var wrongCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return wrong
    }
}

@Suite struct ConcurrencyTests {
    /// One predicate object, evaluated on many threads at once, with a `MATCHES` pattern that
    /// changes from object to object (so its regex cache is contended).
    @Test func onePredicateManyThreads() throws {
        let predicate = try NSPredicate(validatingFormat: "name MATCHES pattern AND n > 2")
        let rows: [[String: Any]] = (0..<400).map { index in
            let letter = ["a", "b", "c", "d"][index % 4]
            return ["name": "\(letter)\(index)", "pattern": index % 3 == 0 ? "\(letter)[0-9]+" : "z.*", "n": index % 5]
        }
        let answers = Answers()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for (index, row) in rows.enumerated() {
                let expected = index % 3 == 0 && index % 5 > 2
                answers.record(predicate.evaluate(with: row) == expected)
            }
        }
        #expect(answers.wrongCount == 0)
    }

    /// Expressions compile lazily under a lock; many threads asking at once get one answer.
    @Test func oneExpressionManyThreads() throws {
        let expression = try NSExpression(validatingFormat: "sum:(items) * factor")
        let answers = Answers()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let value = expression.expressionValue(with: ["items": [1, 2, 3], "factor": index], context: nil)
            answers.record(value as? Int == 6 * index)
        }
        #expect(answers.wrongCount == 0)
    }
}
