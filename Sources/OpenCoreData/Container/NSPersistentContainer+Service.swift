import ServiceLifecycle

/// A container is a swift-service-lifecycle `Service`: run it in the server's `ServiceGroup`,
/// before the HTTP server (services shut down in reverse order, so the server stops taking
/// requests first), and a graceful shutdown lets the saves in flight finish, then closes the
/// stores' connections.
///
/// ```swift
/// let serviceGroup = ServiceGroup(
///     configuration: .init(services: [container, app], gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await serviceGroup.run()
/// ```
///
/// **Differences from Apple:** an OpenCoreData addition.
extension NSPersistentContainer: Service {
    /// Waits for the service group's graceful shutdown (or the task's cancellation), then
    /// `shutdown()`s the container.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Shuts the container's stores down gracefully: saves that are writing finish and later
    /// ones fail with `NSPersistentStoreSaveError`; then every store is removed from the
    /// coordinator and its connections closed (the PostgreSQL store's pool, once each statement
    /// running has its answer). Call it when a server stops (`run()` does), for instance from
    /// Vapor's shutdown: `app.lifecycle.use(…)`.
    ///
    /// **Differences from Apple:** an OpenCoreData addition; Apple's container closes its stores
    /// when it is freed.
    public func shutdown() async {
        await persistentStoreCoordinator.shutdown()
    }
}
