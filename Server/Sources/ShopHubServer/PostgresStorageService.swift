import ServiceLifecycle
import ShopHub

/// The PostgreSQL storage's connection pools, its `LISTEN` and its timers (``PostgresHubStorage/run()``)
/// as a service of the application's group: started before the server, stopped after it. At SIGTERM the
/// group stops the server first, which answers the requests it holds (a long poll at once); then this
/// service, whose connections close once no request needs them (waited for 5 s at most).
///
/// ```swift
/// let storage = try PostgresHubStorage(url: "postgres://hub@db/shop", logger: Logger(label: "shop-hub"))
/// var app = Application(router: HubRoutes(storage: storage).router())
/// app.addServices(PostgresStorageService(storage: storage))
/// app.beforeServerStarts { try await PostgresStorageService(storage: storage).prepare() }
/// ```
struct PostgresStorageService: Service {
    let storage: PostgresHubStorage

    func run() async {
        await storage.runUntilShutdown()
    }

    /// The schema made or migrated, run before the server takes a request (the pools are running by
    /// then); a database that refuses stops the start, saying why.
    func prepare() async throws {
        do { try await storage.migrate() } catch {
            throw StartFailure(message: "cannot prepare the database: \(String(reflecting: error))")
        }
    }
}
