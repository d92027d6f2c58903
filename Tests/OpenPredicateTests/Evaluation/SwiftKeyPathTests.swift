import Testing
@testable import OpenPredicate

struct KPAddress {
    var city: String
}

final class KPPerson: KeyValueCodable {
    var name = "Ada"
    var address = KPAddress(city: "Leeds")
    var manager: KPPerson?
    var tags = ["a", "b"]

    func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "address": ["city": address.city]
        case "manager": manager
        default: nil
        }
    }
}

enum KPOuter {
    struct Inner {
        var value = 0
    }
}

@Suite struct SwiftKeyPathTests {
    @Test func storedPropertiesNameTheKeyPath() throws {
        #expect(NSExpression(forKeyPath: \KPPerson.name).keyPath == "name")
        #expect(NSExpression(forKeyPath: \KPPerson.address.city).keyPath == "address.city")
        #expect(NSExpression(forKeyPath: \KPPerson.manager?.name).keyPath == "manager.name")
        #expect(NSExpression(forKeyPath: \KPOuter.Inner.value).keyPath == "value")
        let boss = KPPerson()
        boss.name = "Grace"
        let person = KPPerson()
        person.manager = boss
        #expect(NSExpression(forKeyPath: \KPPerson.manager?.name).expressionValue(with: person, context: nil) as? String == "Grace")
        #expect(NSExpression(forKeyPath: \KPPerson.address.city).expressionValue(with: person, context: nil) as? String == "Leeds")
    }

    @Test func computedComponentsHaveNoStringForm() {
        #expect(throws: (any Error).self) { try NSExpression(validatingKeyPath: \KPPerson.tags.count) }
        #expect(throws: (any Error).self) { try NSExpression(validatingKeyPath: \KPPerson.tags[0]) }
        #expect((try? NSExpression(validatingKeyPath: \KPPerson.name))?.keyPath == "name")
    }

    @Test func nonThrowingInitializerStopsLikeApple() async {
        await #expect(processExitsWith: .failure) {
            _ = NSExpression(forKeyPath: \KPPerson.tags.count)
        }
    }
}
