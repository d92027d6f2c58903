import Foundation
import OpenCoreData
import Testing

/// Classes whose saves check every property through `validateValue(_:forKey:)` are exactly those
/// that override it (itself, or a superclass between them and `NSManagedObject`).
@Suite struct ValidationOverrideTests {
    class Plain: NSManagedObject {
        @Managed var name: String?
        var note = ""
        override func validateForInsert() throws { try super.validateForInsert() }
    }

    class Checking: NSManagedObject {
        var count = 0
        override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
            try super.validateValue(value, forKey: key)
            count += 1
        }
    }

    final class CheckingChild: Checking {
        @Managed var title: String?
    }

    final class PlainChild: Plain {}

    @Test func onlyClassesThatOverrideValidateValueCheckEveryProperty() {
        #expect(!NSManagedObject.testingValidatesEveryProperty)
        #expect(!Plain.testingValidatesEveryProperty)
        #expect(!PlainChild.testingValidatesEveryProperty)
        #expect(Checking.testingValidatesEveryProperty)
        #expect(CheckingChild.testingValidatesEveryProperty)
        // Asked again in turns, and twice in a row: the last class's answer is kept outside the
        // lock, and must be that class's.
        for _ in 0..<3 {
            #expect(Checking.testingValidatesEveryProperty && !Plain.testingValidatesEveryProperty)
            #expect(!PlainChild.testingValidatesEveryProperty && CheckingChild.testingValidatesEveryProperty)
            #expect(CheckingChild.testingValidatesEveryProperty && CheckingChild.testingValidatesEveryProperty)
            #expect(!Plain.testingValidatesEveryProperty && !Plain.testingValidatesEveryProperty)
        }
    }
}
