import CoreData
import Foundation
import Testing

// Persistent history as Apple's samples use it, with only `import CoreData`: a container whose
// store tracks history and posts remote changes, a background context with an author, and a
// reader that fetches the history after its last token, skips its own author and merges the
// rest into the view context.

private func noteModel() -> NSManagedObjectModel {
    let note = NSEntityDescription()
    note.name = "Note"
    let title = NSAttributeDescription()
    title.name = "title"
    title.attributeType = .stringAttributeType
    note.properties = [title]
    let model = NSManagedObjectModel()
    model.entities = [note]
    return model
}

@Test func historyProcessingAsAppsWriteIt() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let container = NSPersistentContainer(name: "Notes", managedObjectModel: noteModel())
    let description = NSPersistentStoreDescription(url: folder.appendingPathComponent("Notes.sqlite"))
    description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
    container.persistentStoreDescriptions = [description]
    var loadError: Error?
    container.loadPersistentStores { _, error in loadError = error }
    #expect(loadError == nil)
    container.viewContext.transactionAuthor = "app"

    let background = container.newBackgroundContext()
    background.transactionAuthor = "sync"
    try background.performAndWait {
        let note = NSManagedObject(entity: container.managedObjectModel.entitiesByName["Note"]!, insertInto: background)
        note.setValue("From the server", forKey: "title")
        try background.save()
    }

    var lastToken: NSPersistentHistoryToken? = nil
    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
    if let fetchRequest = NSPersistentHistoryTransaction.fetchRequest {
        fetchRequest.predicate = NSPredicate(format: "%K != %@", "author", "app")
        request.fetchRequest = fetchRequest
    }
    let context = container.viewContext
    let result = try context.execute(request) as? NSPersistentHistoryResult
    let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
    #expect(transactions.map { $0.author } == ["sync"])
    for transaction in transactions {
        context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
        lastToken = transaction.token
    }
    #expect(lastToken == container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil))
    let titles = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).compactMap {
        $0.value(forKey: "title") as? String
    }
    #expect(titles == ["From the server"])
}
