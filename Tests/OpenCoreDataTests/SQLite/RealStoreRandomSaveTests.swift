import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Random changes saved into copies of the Apple-written stores and into in-memory copies of
/// them, alike: attributes set to values other objects hold (or nil), to-one relationships
/// pointed elsewhere, members added to and removed from to-many ones (ordered ones in place),
/// new objects, and deletes under the model's delete rules. After each round the file, opened
/// again by a new coordinator, must hold what the in-memory store holds: every object's
/// attributes and relationships (ordered ones in order). A save the file refuses must be one the
/// in-memory store refuses too. Seeded: a failure names the store, round and object.
@Suite(.enabled(if: RealWorld.isAvailable, "../shared/realworld is not beside the package: Apple-written store tests skipped"))
struct RealStoreRandomSaveTests {
    /// One object in both worlds.
    struct Pair {
        let file: NSManagedObject
        let memory: NSManagedObject
    }

    /// An object's contents in terms of the pairs: attributes spelled, destinations by pair index.
    static func contents(
        of object: NSManagedObject, index: (NSManagedObject) -> Int?
    ) -> [String: String] {
        var contents: [String: String] = [:]
        for (name, attribute) in object.entity.attributesByName where !attribute.isTransient {
            contents[name] = object.value(forKey: name).map { "\($0)" } ?? "nil"
        }
        for (name, relationship) in object.entity.relationshipsByName {
            let value = object.value(forKey: name)
            if relationship.isOrdered {
                let members = (value as? NSOrderedSet)?.array as? [NSManagedObject] ?? []
                contents[name] = "\(members.map { index($0) ?? -1 })"
            } else if relationship.isToMany {
                contents[name] = "\((value as? Set<NSManagedObject> ?? []).map { index($0) ?? -1 }.sorted())"
            } else {
                contents[name] = "\((value as? NSManagedObject).map { index($0) ?? -1 } ?? -2)"
            }
        }
        return contents
    }

    @Test(arguments: RealStoreRandomTests.stores)
    func randomSavesMatchAnInMemoryCopy(_ store: AppleWrittenStoreTests.Store) throws {
        let folder = try TemporaryFolder()
        let model = try store.model()
        let url = try store.copy(into: folder)
        let (file, memory, copies) = try RealStoreRandomTests.fileAndCopy(of: url, model: model, readOnly: false)
        var pairs = copies.compactMap { id, copy in (try? file.existingObject(with: id)).map { Pair(file: $0, memory: copy) } }
        pairs.sort { "\($0.file.objectID.uriRepresentation())" < "\($1.file.objectID.uriRepresentation())" }
        var random = SplitMix64(seed: UInt64(pairs.count) &* 104_729)
        func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
        let constrained = Set(model.entities.flatMap { $0.uniquenessConstraints.flatMap { $0.compactMap { $0 as? String } } })
        var saved = 0
        for round in 0..<6 {
            for _ in 0..<10 where !pairs.isEmpty {
                let pair = pick(pairs)
                let entity = pair.memory.entity
                let sameEntity = pairs.filter { $0.memory.entity === entity }
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1:
                    let attributes = entity.attributesByName.values.filter {
                        !$0.isTransient && !constrained.contains($0.name) && $0.attributeType != .binaryDataAttributeType
                            && $0.attributeType != .transformableAttributeType
                    }.sorted { $0.name < $1.name }
                    guard !attributes.isEmpty else { continue }
                    let attribute = pick(attributes)
                    let donor = pick(sameEntity)
                    let value =
                        attribute.isOptional && Int.random(in: 0..<4, using: &random) == 0
                        ? nil : donor.memory.value(forKey: attribute.name)
                    pair.memory.setValue(value, forKey: attribute.name)
                    pair.file.setValue(value, forKey: attribute.name)
                case 2, 3:
                    // Not those whose change would leave another object without a required
                    // to-one (a one-to-one stealing its destination, a member taken out).
                    let relationships = entity.relationshipsByName.values.filter { relationship in
                        guard let inverse = relationship.inverseRelationship else { return true }
                        let oneToOne = !relationship.isToMany && !inverse.isToMany
                        return (inverse.isToMany || inverse.isOptional) && !(oneToOne && !relationship.isOptional)
                    }.sorted { $0.name < $1.name }
                    guard !relationships.isEmpty else { continue }
                    let relationship = pick(relationships)
                    let candidates = pairs.filter { candidate in
                        var kind: NSEntityDescription? = candidate.memory.entity
                        while let current = kind, current !== relationship.destinationEntity { kind = current.superentity }
                        return kind != nil
                    }
                    guard !candidates.isEmpty else { continue }
                    let target = pick(candidates)
                    if !relationship.isToMany {
                        let clear = relationship.isOptional && Int.random(in: 0..<4, using: &random) == 0
                        pair.memory.setValue(clear ? nil : target.memory, forKey: relationship.name)
                        pair.file.setValue(clear ? nil : target.file, forKey: relationship.name)
                    } else if !(relationship.inverseRelationship?.isOptional ?? true) {
                        continue
                    } else if relationship.isOrdered {
                        for (side, member) in [(pair.memory, target.memory), (pair.file, target.file)] {
                            let members = side.mutableOrderedSetValue(forKey: relationship.name)
                            if members.contains(member) { members.remove(member) } else { members.insert(member, at: 0) }
                        }
                    } else {
                        for (side, member) in [(pair.memory, target.memory), (pair.file, target.file)] {
                            let members = side.mutableSetValue(forKey: relationship.name)
                            if members.contains(member) { members.remove(member) } else { members.add(member) }
                        }
                    }
                case 4:
                    // Not an object whose deletion would leave another without a required to-one.
                    let orphans = entity.relationshipsByName.values.contains { relationship in
                        guard let inverse = relationship.inverseRelationship, !inverse.isToMany, !inverse.isOptional,
                            relationship.deleteRule != .cascadeDeleteRule
                        else { return false }
                        return pair.memory.value(forKey: relationship.name) != nil
                    }
                    guard !orphans else { continue }
                    memory.delete(pair.memory)
                    file.delete(pair.file)
                default:
                    // A new object with another's attributes and to-ones; what must be unique
                    // made anew. (Not of an entity with a required one-to-one: its destination
                    // would be taken from the other object.)
                    let oneToOnes = entity.relationshipsByName.values.filter {
                        !$0.isToMany && $0.inverseRelationship.map { !$0.isToMany } == true
                    }
                    guard !oneToOnes.contains(where: { !$0.isOptional }) else { continue }
                    let made = Pair(
                        file: NSManagedObject(entity: entity, insertInto: file),
                        memory: NSManagedObject(entity: entity, insertInto: memory))
                    for (name, attribute) in entity.attributesByName where !attribute.isTransient {
                        var value = pair.memory.value(forKey: name)
                        if constrained.contains(name) {
                            value = attribute.attributeType == .UUIDAttributeType ? UUID() : "new \(pairs.count)"
                        }
                        made.memory.setValue(value, forKey: name)
                        made.file.setValue(value, forKey: name)
                    }
                    for (name, relationship) in entity.relationshipsByName
                    where !relationship.isToMany && !oneToOnes.contains(relationship) {
                        made.memory.setValue(pair.memory.value(forKey: name), forKey: name)
                        made.file.setValue(pair.file.value(forKey: name), forKey: name)
                    }
                    pairs.append(made)
                }
            }
            let label = "\(store.testDescription) round \(round)"
            let savedMemory = Result { try memory.save() }
            let savedFile = Result { try file.save() }
            switch (savedMemory, savedFile) {
            case (.success, .success):
                saved += 1
            case (.failure, .failure):
                memory.rollback()
                file.rollback()
            default:
                Issue.record("\(label): memory \(savedMemory), file \(savedFile)")
                return
            }
            pairs.removeAll {
                $0.memory.isDeleted || $0.memory.managedObjectContext == nil || $0.file.managedObjectContext == nil
            }
            // The file as a new coordinator reads it, against the in-memory store.
            let reader = try AppleWrittenStoreTests.open(url, model: model, readOnly: true)
            var indexByFileID: [NSManagedObjectID: Int] = [:]
            for (index, pair) in pairs.enumerated() { indexByFileID[pair.file.objectID] = index }
            var indexByMemory: [ObjectIdentifier: Int] = [:]
            for (index, pair) in pairs.enumerated() { indexByMemory[ObjectIdentifier(pair.memory)] = index }
            var readCount = 0
            for entity in model.entities where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                request.includesSubentities = false
                for object in try reader.fetch(request) {
                    readCount += 1
                    guard let index = indexByFileID[object.objectID] else {
                        Issue.record("\(label): the file has \(object.objectID), the copy does not")
                        continue
                    }
                    let read = Self.contents(of: object) { indexByFileID[$0.objectID] }
                    let expected = Self.contents(of: pairs[index].memory) { indexByMemory[ObjectIdentifier($0)] }
                    for key in Set(read.keys).union(expected.keys).sorted() where read[key] != expected[key] {
                        Issue.record(
                            "\(label) \(entity.name ?? "") #\(index) \(key): file \(read[key] ?? "-"), memory \(expected[key] ?? "-")"
                        )
                    }
                }
            }
            #expect(readCount == pairs.count, "\(label)")
        }
        #expect(saved > 0, "\(store.testDescription)")
    }
}
