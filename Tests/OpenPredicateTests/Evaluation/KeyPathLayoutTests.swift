import Foundation
import Testing

@testable import OpenPredicate

// Plain `NSObject` subclasses as Apple-platform code declares them (there with `@objc`, which
// names their key paths): classes that are not `final`, whose `var`s Swift reads through the
// class's accessors, so that their key paths describe themselves as `<computed 0x…>`.

class LayoutHouse: NSObject {
    var inhabitants = 0
    var name: String?
    var owner: LayoutResident?
    let built = 1901
    lazy var floors = 2
    private(set) var street = "Elm"
    func paint() {}
    var label: String { "house \(inhabitants)" }
}

class LayoutResident: NSObject {
    var age = 30
    var home: LayoutHouse?
}

class LayoutMansion: LayoutHouse {
    var pools = 2
}

/// A computed property with a setter among the stored ones: its getter cannot be told from a
/// stored `var`'s, so none of the class's accessor key paths is named (rather than one wrongly).
class LayoutCabin: NSObject {
    var logs = 10
    var doubled: Int {
        get { logs * 2 }
        set { logs = newValue / 2 }
    }
}

@Suite struct KeyPathLayoutTests {
    @Test func varsOfClassesThatAreNotFinalAreNamed() {
        #expect(KeyPathNames.name(of: \LayoutHouse.inhabitants) == "inhabitants")
        #expect(KeyPathNames.name(of: \LayoutHouse.name) == "name")
        #expect(KeyPathNames.name(of: \LayoutHouse.built) == "built")
        #expect(KeyPathNames.name(of: \LayoutHouse.floors) == "floors")
        #expect(KeyPathNames.name(of: \LayoutHouse.street) == "street")
        #expect(KeyPathNames.name(of: \LayoutHouse.owner?.age) == "owner.age")
        #expect(KeyPathNames.name(of: \LayoutResident.home?.owner?.home?.name) == "home.owner.home.name")
        #expect(KeyPathNames.name(of: \LayoutResident.home!.inhabitants) == "home.inhabitants")
        // Inherited and own properties of a subclass.
        #expect(KeyPathNames.name(of: \LayoutMansion.pools) == "pools")
        #expect(KeyPathNames.name(of: \LayoutMansion.inhabitants) == "inhabitants")
        #expect(KeyPathNames.name(of: \LayoutMansion.owner?.home?.street) == "owner.home.street")
    }

    @Test func accessorsThatAreNotStoredVarsHaveNoName() {
        #expect(KeyPathNames.name(of: \LayoutHouse.label) == nil)
        #expect(KeyPathNames.name(of: \LayoutHouse.label.count) == nil)
        #expect(KeyPathNames.name(of: \LayoutCabin.doubled) == nil)
        #expect(KeyPathNames.name(of: \LayoutCabin.logs) == nil)
        #expect(KeyPathNames.name(of: \LayoutHouse.name?.count) == nil)
    }

    @Test func apiThatTakesKeyPathsUsesTheNames() throws {
        #expect((\LayoutHouse.owner?.age)._kvcKeyPathString == "owner.age")
        #expect(NSExpression(forKeyPath: \LayoutHouse.inhabitants).keyPath == "inhabitants")
        #expect(NSSortDescriptor(keyPath: \LayoutMansion.pools, ascending: false).key == "pools")
        #expect(NSSortDescriptor(SortDescriptor(\LayoutHouse.inhabitants)).key == "inhabitants")

        // Key-value coding reads what the names say.
        let resident = LayoutResident()
        resident.age = 41
        let house = LayoutHouse()
        house.inhabitants = 3
        house.owner = resident
        #expect(NSExpression(forKeyPath: \LayoutHouse.owner?.age).expressionValue(with: house, context: nil) as? Int == 41)
        let crowded = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: \LayoutHouse.inhabitants),
            rightExpression: NSExpression(forConstantValue: 2), modifier: .direct, type: .greaterThan)
        #expect(crowded.predicateFormat == "inhabitants > 2")
        #expect(crowded.evaluate(with: house))
        house.inhabitants = 1
        #expect(!crowded.evaluate(with: house))
    }
}
