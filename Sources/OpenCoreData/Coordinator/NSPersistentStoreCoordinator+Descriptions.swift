import OpenPredicate

extension NSPersistentStoreCoordinator {
    /// Adds the store a description describes, and calls `block` with the description and the
    /// error, if any.
    ///
    /// ```swift
    /// let description = NSPersistentStoreDescription()
    /// description.type = NSInMemoryStoreType
    /// coordinator.addPersistentStore(with: description) { description, error in
    ///     if let error { print("could not add \(description): \(error)") }
    /// }
    /// ```
    ///
    /// The store is added as by `addPersistentStore(ofType:configurationName:at:options:)` with
    /// the description's `type`, `configuration`, `url` and `options`. Unless the description's
    /// `shouldAddStoreAsynchronously` is set, the store is added and `block` called before this
    /// returns; otherwise both happen later on a background queue.
    ///
    /// See [addPersistentStore(with:completionHandler:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/addpersistentstore(with:completionhandler:)).
    ///
    /// - Parameters:
    ///   - storeDescription: The store to add.
    ///   - block: Called once, with `storeDescription` and `nil` or the error.
    public func addPersistentStore(
        with storeDescription: NSPersistentStoreDescription,
        completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void
    ) {
        let work = StoreAddition(coordinator: self, description: storeDescription, completion: block)
        if storeDescription.shouldAddStoreAsynchronously {
            DispatchQueue.global().async { work.run() }
        } else {
            work.run()
        }
    }

    /// The metadata of one of the coordinator's stores (see `NSPersistentStore.metadata`).
    ///
    /// See [metadata(for:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/metadata(for:)).
    ///
    /// - Parameter store: A store of the coordinator.
    /// - Returns: The store's metadata.
    public func metadata(for store: NSPersistentStore) -> [String: Any] {
        store.metadata ?? [:]
    }

    /// Replaces the metadata of one of the coordinator's stores (see `NSPersistentStore.metadata`).
    ///
    /// **Differences from Apple:** the in-memory store keeps metadata in memory only.
    /// See [setMetadata(_:for:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/setmetadata(_:for:)).
    ///
    /// - Parameters:
    ///   - metadata: The new metadata; `nil` removes every key the app set.
    ///   - store: A store of the coordinator.
    public func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        store.metadata = metadata
    }
}

/// One `addPersistentStore(with:completionHandler:)` call, carried to a background queue when
/// the description asks; the coordinator's store list is locked, and the description is not
/// touched by the caller meanwhile (as on Apple).
private struct StoreAddition: @unchecked Sendable {
    // @unchecked Sendable: handed whole to the queue that adds the store (see above).

    let coordinator: NSPersistentStoreCoordinator
    let description: NSPersistentStoreDescription
    let completion: (NSPersistentStoreDescription, Error?) -> Void

    func run() {
        var options: [AnyHashable: Any] = [:]
        for (key, value) in description.options { options[key] = value }
        if let logger = description.logger { options[NSPersistentStoreLoggerKey] = logger }
        do {
            try coordinator.addPersistentStore(
                ofType: description.type, configurationName: description.configuration, at: description.url,
                options: options)
            completion(description, nil)
        } catch {
            completion(description, error)
        }
    }
}
