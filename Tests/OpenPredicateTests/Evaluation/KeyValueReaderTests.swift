import Testing
@testable import OpenPredicate

final class KVCPerson: KeyValueCodable {
    let name: String
    let age: Int
    let friends: [KVCPerson]
    init(_ name: String, _ age: Int, friends: [KVCPerson] = []) {
        self.name = name
        self.age = age
        self.friends = friends
    }
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "age": age
        case "friends": friends
        default: nil
        }
    }
}

struct KVCPlain {
    var title: String
    var count: Int?
}

@Suite struct KeyValueReaderTests {
    let ada = KVCPerson("Ada", 36, friends: [KVCPerson("Bo", 20), KVCPerson("Cy", 40), KVCPerson("Bo", 30)])

    @Test func readsThroughConformanceDictionariesAndMirror() {
        #expect(KeyValueReader.value(of: ada, forKey: "name") as? String == "Ada")
        #expect(KeyValueReader.value(of: ["a": ["b": 3]] as [String: Any], forKeyPath: "a.b") as? Int == 3)
        #expect(KeyValueReader.value(of: NSDictionary(dictionary: ["k": "v"]), forKey: "k") as? String == "v")
        #expect(KeyValueReader.value(of: KVCPlain(title: "t", count: 2), forKey: "title") as? String == "t")
        #expect(KeyValueReader.value(of: KVCPlain(title: "t", count: 2), forKey: "count") as? Int == 2)
        #expect(KeyValueReader.value(of: KVCPlain(title: "t", count: nil), forKey: "count") == nil)
        #expect(KeyValueReader.value(of: ada, forKey: "missing") == nil)
        #expect(KeyValueReader.value(of: ada, forKey: "self") as AnyObject? === ada)
    }

    @Test func dictionariesWithAnyHashableKeysAnswerToo() {
        // What a dictionary read out of an NSArray becomes.
        let row: [AnyHashable: Any] = ["name": "Ada", 1: "one"]
        #expect(KeyValueReader.value(of: row, forKey: "name") as? String == "Ada")
        #expect(KeyValueReader.value(of: [1: "one"] as [Int: String], forKey: "1") == nil)
        let rows = NSArray(array: [["n": 2], ["n": 1]])
        let sorted = rows.sortedArray(using: [NSSortDescriptor(key: "n", ascending: true)])
        #expect(sorted.compactMap { KeyValueReader.value(of: $0, forKey: "n") as? Int } == [1, 2])
    }

    @Test func keysMapOverCollections() {
        let names = KeyValueReader.value(of: ada, forKeyPath: "friends.name") as? [Any]
        #expect(names?.compactMap { $0 as? String } == ["Bo", "Cy", "Bo"])
    }

    @Test func collectionOperators() {
        #expect(KeyValueReader.value(of: ada, forKeyPath: "friends.@count") as? Int == 3)
        #expect(KeyValueReader.value(of: ada, forKeyPath: "friends.@sum.age") as? Int == 90)
        #expect(KeyValueReader.value(of: ada, forKeyPath: "friends.@avg.age") as? Double == 30)
        #expect(KeyValueReader.value(of: ada, forKeyPath: "friends.@min.age") as? Int == 20)
        #expect(KeyValueReader.value(of: ada, forKeyPath: "friends.@max.name") as? String == "Cy")
        let distinct = KeyValueReader.value(of: ada, forKeyPath: "friends.@distinctUnionOfObjects.name") as? [Any]
        #expect(distinct?.compactMap { $0 as? String } == ["Bo", "Cy"])
        let union = KeyValueReader.value(of: ada, forKeyPath: "friends.@unionOfObjects.name") as? [Any]
        #expect(union?.count == 3)
        let arrays: [String: Any] = ["lists": [[1, 2], [2, 3]]]
        #expect((KeyValueReader.value(of: arrays, forKeyPath: "lists.@unionOfArrays.self") as? [Any])?.count == 4)
        #expect((KeyValueReader.value(of: arrays, forKeyPath: "lists.@distinctUnionOfArrays.self") as? [Any])?.count == 3)
        #expect(KeyValueReader.value(of: ["xs": [Int]()] as [String: Any], forKeyPath: "xs.@sum.self") as? Int == 0)
        #expect(KeyValueReader.value(of: ["xs": [Int]()] as [String: Any], forKeyPath: "xs.@avg.self") == nil)
    }

    @Test func stringAndNumberKeys() {
        #expect(KeyValueReader.value(of: "Hello", forKey: "length") as? Int == 5)
        #expect(KeyValueReader.value(of: "a/b/c.txt", forKey: "lastPathComponent") as? String == "c.txt")
        #expect(KeyValueReader.value(of: 3.7, forKey: "intValue") as? Int == 3)
        #expect(KeyValueReader.value(of: "Do", forKey: "description") as? String == "Do")
    }
}
