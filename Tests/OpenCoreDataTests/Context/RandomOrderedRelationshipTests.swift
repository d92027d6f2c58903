import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Ordered and many-to-many relationships changed at random and saved in rounds, then read back
/// by a context that never saw them (a new coordinator on an SQLite file), against plain arrays
/// kept by the test. The model:
///
///     Playlist: name; songs -> Song (ordered to-many, inverse playlist)
///     Song: title; playlist -> Playlist (to-one); tags <-> Tag.songs (many-to-many, ordered on
///       the song's side)
///     Tag: label; songs <-> Song.tags (many-to-many)
///
/// Changes insert songs at any position, move them within a playlist and between playlists,
/// take them out, set a song's playlist from its own side (it goes to the end), reorder and
/// change tags from either side, and delete songs; every other round in a child context, saved
/// into the root and then to the store. Seeded.
@Suite struct RandomOrderedRelationshipTests {
    static func model() -> NSManagedObjectModel {
        let playlist = NSEntityDescription()
        playlist.name = "Playlist"
        let song = NSEntityDescription()
        song.name = "Song"
        let tag = NSEntityDescription()
        tag.name = "Tag"
        let songs = relationship("songs", to: song, maxCount: 0, ordered: true)
        let owner = relationship("playlist", to: playlist, maxCount: 1)
        inverses(songs, owner)
        let tags = relationship("tags", to: tag, maxCount: 0, ordered: true)
        let tagged = relationship("songs", to: song, maxCount: 0)
        inverses(tags, tagged)
        playlist.properties = [attribute("name", .stringAttributeType), songs]
        song.properties = [attribute("title", .stringAttributeType), owner, tags]
        tag.properties = [attribute("label", .stringAttributeType), tagged]
        let model = NSManagedObjectModel()
        model.entities = [playlist, song, tag]
        return model
    }

    /// What the test expects: playlists' songs and songs' tags in order, by name.
    struct Record: Equatable {
        var playlists: [String: [String]] = [:]
        var tags: [String: [String]] = [:]
    }

    static func read(_ context: NSManagedObjectContext) throws -> Record {
        var record = Record()
        func names(_ value: Any?, _ key: String) -> [String] {
            ((value as? NSOrderedSet)?.array as? [NSManagedObject] ?? []).map { $0.value(forKey: key) as? String ?? "?" }
        }
        for playlist in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Playlist")) {
            record.playlists[playlist.value(forKey: "name") as? String ?? "?"] = names(playlist.value(forKey: "songs"), "title")
        }
        for song in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Song")) {
            record.tags[song.value(forKey: "title") as? String ?? "?"] = names(song.value(forKey: "tags"), "label")
        }
        return record
    }

    /// A new song's ordered tags, when the tags were saved before (so their side of the
    /// many-to-many is updated in the same save), keep their order in the file: the tags'
    /// unordered side used to delete and rewrite the join rows after the song wrote them, without
    /// the order column.
    @Test func aNewMembersOrderSurvivesTheOtherSidesUpdate() throws {
        let model = Self.model()
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Ordered.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let tags = try ["T0", "T1", "T2"].map { label in
            let tag = NSManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
            tag.setValue(label, forKey: "label")
            return tag
        }
        try context.save()
        let song = NSManagedObject(entity: try #require(model.entitiesByName["Song"]), insertInto: context)
        song.setValue("S", forKey: "title")
        song.setValue(NSOrderedSet(array: [tags[2], tags[0], tags[1]]), forKey: "tags")
        try context.save()
        let fresh = NSPersistentStoreCoordinator(managedObjectModel: model)
        try fresh.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = fresh
        #expect(try Self.read(reader).tags["S"] == ["T2", "T0", "T1"])
    }

    @Test(arguments: ContextFixture.storeTypes, [UInt64(1), 2, 3])
    func randomOrderedChangesSaveAndReadBack(_ storeType: String, _ seed: UInt64) throws {
        let model = Self.model()
        let folder = try TemporaryFolder()
        let url = try folder.storeURL(for: storeType, name: "Ordered.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let root = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        root.persistentStoreCoordinator = coordinator
        // Where the round's changes are made: the root, or (every other round) a child of it.
        var context = root
        var random = SplitMix64(seed: seed)
        func int(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        var record = Record()
        var playlists: [String: NSManagedObject] = [:]
        var songs: [String: NSManagedObject] = [:]
        var tags: [String: NSManagedObject] = [:]
        func owner(of title: String) -> String? { record.playlists.first { $0.value.contains(title) }?.key }
        for name in ["P0", "P1", "P2"] {
            let playlist = NSManagedObject(entity: model.entitiesByName["Playlist"] ?? NSEntityDescription(), insertInto: context)
            playlist.setValue(name, forKey: "name")
            playlists[name] = playlist
            record.playlists[name] = []
        }
        for label in ["T0", "T1", "T2", "T3"] {
            let tag = NSManagedObject(entity: model.entitiesByName["Tag"] ?? NSEntityDescription(), insertInto: context)
            tag.setValue(label, forKey: "label")
            tags[label] = tag
        }
        var serial = 0
        /// The objects as `target` has them.
        func move(to target: NSManagedObjectContext) {
            playlists = playlists.mapValues { target.object(with: $0.objectID) }
            songs = songs.mapValues { target.object(with: $0.objectID) }
            tags = tags.mapValues { target.object(with: $0.objectID) }
            context = target
        }
        for round in 0..<8 {
            if round % 2 == 1 {
                let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                child.parent = root
                move(to: child)
            }
            for _ in 0..<20 {
                let titles = songs.keys.sorted()
                switch int(9) {
                case 0, 1:
                    // A new song at a position in a playlist.
                    serial += 1
                    let title = "S\(serial)"
                    let song = NSManagedObject(entity: model.entitiesByName["Song"] ?? NSEntityDescription(), insertInto: context)
                    song.setValue(title, forKey: "title")
                    songs[title] = song
                    record.tags[title] = []
                    let name = "P\(int(3))"
                    let position = int((record.playlists[name]?.count ?? 0) + 1)
                    playlists[name]?.mutableOrderedSetValue(forKey: "songs").insert(song, at: position)
                    record.playlists[name]?.insert(title, at: position)
                case 2 where !titles.isEmpty:
                    // Moved to a position in a playlist (its own or another).
                    let title = titles[int(titles.count)]
                    let name = "P\(int(3))"
                    if let from = owner(of: title) {
                        record.playlists[from]?.removeAll { $0 == title }
                        if from == name, let song = songs[title] {
                            playlists[name]?.mutableOrderedSetValue(forKey: "songs").remove(song)
                        }
                    }
                    let position = int((record.playlists[name]?.count ?? 0) + 1)
                    if let song = songs[title] {
                        playlists[name]?.mutableOrderedSetValue(forKey: "songs").insert(song, at: position)
                    }
                    record.playlists[name]?.insert(title, at: position)
                case 3 where !titles.isEmpty:
                    // Taken out of its playlist.
                    let title = titles[int(titles.count)]
                    if let from = owner(of: title), let song = songs[title] {
                        playlists[from]?.mutableOrderedSetValue(forKey: "songs").remove(song)
                        record.playlists[from]?.removeAll { $0 == title }
                    }
                case 4 where !titles.isEmpty:
                    // Its playlist set from the song's side: it goes to the end.
                    let title = titles[int(titles.count)]
                    let name = "P\(int(3))"
                    guard owner(of: title) != name else { continue }
                    if let from = owner(of: title) { record.playlists[from]?.removeAll { $0 == title } }
                    songs[title]?.setValue(playlists[name], forKey: "playlist")
                    record.playlists[name]?.append(title)
                case 5 where !titles.isEmpty:
                    // A song's tags replaced by a reordered selection.
                    let title = titles[int(titles.count)]
                    let labels = ["T0", "T1", "T2", "T3"].shuffled(using: &random).prefix(int(4))
                    songs[title]?.setValue(NSOrderedSet(array: labels.compactMap { tags[$0] }), forKey: "tags")
                    record.tags[title] = Array(labels)
                case 6 where !titles.isEmpty:
                    // A tag added from the tag's side (the end of the song's tags) or taken away.
                    let title = titles[int(titles.count)]
                    let label = "T\(int(4))"
                    guard let song = songs[title], let tag = tags[label] else { continue }
                    if record.tags[title]?.contains(label) == true {
                        tag.mutableSetValue(forKey: "songs").remove(song)
                        record.tags[title]?.removeAll { $0 == label }
                    } else {
                        tag.mutableSetValue(forKey: "songs").add(song)
                        record.tags[title]?.append(label)
                    }
                case 7 where !titles.isEmpty:
                    // Deleted. (Out of its playlist first: delete rules run at the save, and until
                    // then a deleted song would still hold its place among the positions used.)
                    let title = titles[int(titles.count)]
                    if let song = songs.removeValue(forKey: title) {
                        song.setValue(nil, forKey: "playlist")
                        context.delete(song)
                    }
                    if let from = owner(of: title) { record.playlists[from]?.removeAll { $0 == title } }
                    record.tags[title] = nil
                default:
                    break
                }
            }
            let label = "\(storeType) seed \(seed) round \(round)"
            if context !== root {
                try context.save()
                #expect(try Self.read(context) == record, "\(label) in the child")
                move(to: root)
            }
            try root.save()
            #expect(try Self.read(root) == record, "\(label) in the saving context")
            let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            if storeType != NSInMemoryStoreType {
                let fresh = NSPersistentStoreCoordinator(managedObjectModel: model)
                try fresh.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
                reader.persistentStoreCoordinator = fresh
            } else {
                reader.persistentStoreCoordinator = coordinator
            }
            let read = try Self.read(reader)
            #expect(read.playlists == record.playlists, "\(label) playlists")
            for (title, labels) in record.tags where read.tags[title] != labels {
                Issue.record("\(label) \(title): read \(read.tags[title] ?? []), expected \(labels)")
            }
            #expect(read.tags.count == record.tags.count, "\(label) songs")
        }
    }
}
