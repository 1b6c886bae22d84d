// Every DocC example in Server/Sources, verbatim, so that building the tests compiles them.
// DocExampleTests (below) checks that each example here is still exactly its doc comment.
import Foundation
import Hummingbird
import Logging
import ShopEvents
@testable import ShopHubServer
import ShopHub
import ShopTestSupport
import Testing

// Sources/ShopHub/Storage/Files/FileHubStorage.swift #1
@MainActor func example_FileHubStorage_1() async throws {
    let storage = try FileHubStorage(directory: "shop-hub-data")
    print(try await storage.households().count)
}

// Sources/ShopHub/Push/HubCore.swift #1
@MainActor func example_HubCore_1() {
    func hello(_ household: HouseholdID, over store: some HubLineStore) async throws -> SyncResponse {
        try await HubCore(store: store).sync(household, .hello(protocol: 1, device: "d", actor: "a"), as: "a", token: nil)
    }
}

// Sources/ShopHub/Push/HubPush.swift #1
@MainActor func example_HubPush_1() {
    let push = HubPush(household: HouseholdID(), commands: [], actor: "ana")
    print(push.token == nil)   // true: checked by the caller
}

// Sources/ShopHub/WebApp.swift #1
@MainActor func example_WebApp_1() throws {
    let router = Router(context: HubRequestContext.self)
    if let app = try WebApp.bundled() { app.add(to: router) }
}

// Sources/ShopHub/Middleware/Compression.swift #1
@MainActor func example_Compression_1() {
    let router = Router(context: HubRequestContext.self)
    router.add(middleware: Compression())
}

// Sources/ShopHub/Routes/HubError.swift #1
@MainActor func example_HubError_1() {
    let refusal = HubError.forbidden("the token is another household's")
    print(refusal.status.code, refusal.code)   // 403 forbidden
}

// Sources/ShopHub/Routes/HubError.swift #2
@MainActor func example_HubError_2() {
    print(HubError.bounded(String(repeating: "a", count: 70_000)).count)   // 65: the first 64 characters and "…"
}

// Sources/ShopHub/Storage/PostgreSQL/PostgresAddress.swift #1
@MainActor func example_PostgresAddress_1() async throws {
    do { try await PostgresHubStorage.check(url: "postgres://hub@db/shop") } catch let refusal as HubError {
        print(refusal.message)   // the database "shop" cannot be used: database "shop" does not exist
    }
}

// Sources/ShopHub/Identity/HubLimits.swift #1
@MainActor func example_HubLimits_1() {
    var limits = HubLimits()
    limits.requestsPerTokenPerSecond = 50
    limits.maxWaitSeconds = 25          // a proxy in front times out at 30 s
}

// Sources/ShopHub/Routes/HubRequestContext.swift #1
@MainActor func example_HubRequestContext_1() {
    let router = Router(context: HubRequestContext.self)
    router.get("/hello") { _, context in "hello, \(context.remoteAddress?.ipAddress ?? "someone")" }
}

// Sources/ShopHub/Identity/TrustedProxies.swift #1
@MainActor func example_TrustedProxies_1() throws {
    let proxies = try TrustedProxies(["10.0.0.0/8", "::1"])
    print(proxies.client(peer: "10.0.0.7", forwardedFor: ["203.0.113.9, 10.0.0.3"], forwarded: []))   // 203.0.113.9
    print(proxies.client(peer: "198.51.100.4", forwardedFor: ["203.0.113.9"], forwarded: []))          // 198.51.100.4
}

// Sources/ShopHub/Support/AnswerEncoder.swift #1
@MainActor func example_AnswerEncoder_1() throws {
    struct Status: ResponseEncodable { let status: String }
    print(String(decoding: try AnswerEncoder.json(Status(status: "ok")), as: UTF8.self))   // {"status":"ok"}
}

// Sources/ShopHub/Routes/HubRoutes.swift #1
@MainActor func example_HubRoutes_1() throws {
    let storage = try FileHubStorage(directory: "shop-hub-data")
    let router = HubRoutes(storage: storage).router()
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
    _ = app
}

// Sources/ShopHub/Storage/HubStorage.swift #1
@MainActor func example_HubStorage_1() {
    func head(of household: HouseholdID, in storage: some HubStorage) async throws -> Int {
        guard case let .hello(_, _, head) = try await storage.sync(household, .hello(protocol: 1, device: "d", actor: "a"), as: "a") else { return 0 }
        return head.seq
    }
}

// Sources/ShopHub/Identity/DeviceRecord.swift #1
@MainActor func example_DeviceRecord_1() {
    let token = Secrets.token()
    let phone = DeviceRecord(household: HouseholdID(), name: "ana-phone", actor: "ana",
                             tokenHash: TokenHash(of: token), created: Clock.system.now())
    print(phone.revoked == nil)   // true: its token works
}

// Sources/ShopHub/Identity/InviteRecord.swift #1
@MainActor func example_InviteRecord_1() {
    let code = Secrets.joinCode()
    let invite = InviteRecord(household: HouseholdID(), codeHash: TokenHash(of: code), actor: "ben",
                              expires: Timestamp(millisecondsSince1970: 1_800_000_000_000), by: "ana-phone")
    print(invite.actor)   // ben
}

// Sources/ShopHub/Storage/HubLineStore.swift #1
@MainActor func example_HubLineStore_1() {
    func head(of household: HouseholdID, in store: some HubLineStore) async throws -> Int {
        try await store.head(of: household, token: nil).seq
    }
}

// Sources/ShopHub/Storage/HubLineStore.swift #2
@MainActor func example_HubLineStore_2() {
    func count(_ locked: any HubLockedHousehold) async throws -> Int {
        try await locked.lines(after: 0).lines.count
    }
}

// Sources/ShopHub/Storage/HubLineStore.swift #3
@MainActor func example_HubLineStore_3() {
    let none = HubLines(after: .noJournal, lines: [])
    print(none.lines.isEmpty)   // true
}

// Sources/ShopHub/Storage/HubLineStore.swift #4
@MainActor func example_HubLineStore_4() {
    func wrote(_ outcome: HubAppend.Outcome) -> Bool {
        if case .written = outcome { return true } else { return false }
    }
}

// Sources/ShopHub/Storage/HubRecords.swift #1
@MainActor func example_HubRecords_1() {
    func names(in household: HouseholdID, _ records: some HubRecords) async throws -> [String] {
        try await records.devices(of: household).map(\.name)
    }
}

// Sources/ShopHub/Storage/Files/FileLineStore.swift #1
@MainActor func example_FileLineStore_1() {
    func head(of household: HouseholdID, in storage: FileHubStorage) async throws -> JournalHead {
        try await storage.core.store.head(of: household, token: nil)
    }
}

// Sources/ShopHub/Storage/Memory/MemoryLineStore.swift #1
@MainActor func example_MemoryLineStore_1() {
    func lines(of household: HouseholdID, in storage: MemoryHubStorage) async throws -> Int {
        try await storage.core.store.lines(of: household, after: 0, limit: nil, token: nil).lines.count
    }
}

// Sources/ShopHub/Storage/PostgreSQL/PostgresLineStore.swift #1
@MainActor func example_PostgresLineStore_1() {
    func head(of household: HouseholdID, in storage: PostgresHubStorage) async throws -> JournalHead {
        try await storage.core.store.head(of: household, token: nil)
    }
}

// Sources/ShopHub/Storage/Memory/MemoryHubStorage.swift #1
@MainActor func example_MemoryHubStorage_1() async throws {
    let storage = MemoryHubStorage(clock: .system, ids: .random)
    let household = HouseholdID()
    let phone = DeviceRecord(household: household, name: "ana-phone", actor: "ana",
                             tokenHash: TokenHash(of: Secrets.token()), created: Clock.system.now())
    try await storage.createHousehold(household, firstDevice: phone, from: nil)
    print(try await storage.sync(household, .hello(protocol: 1, device: "ana-phone", actor: "ana"), as: "ana"))   // a hello, head 0
}

// Sources/ShopHub/Storage/PostgreSQL/PostgresHubStorage.swift #1
@MainActor func example_PostgresHubStorage_1() {
    func open(_ url: String, logger: Logger) async throws -> PostgresHubStorage {
        let storage = try PostgresHubStorage(url: url, logger: logger)
        Task { await storage.run() }          // the connection pool, for the storage's life
        try await storage.migrate()
        return storage
    }
}

// Sources/ShopHub/Identity/Secrets.swift #1
@MainActor func example_Secrets_1() {
    let token = Secrets.token()
    let kept = TokenHash(of: token)
    print(kept.matches(TokenHash(of: token)))   // true, compared in constant time
}

// Sources/ShopHub/Identity/Secrets.swift #2
@MainActor func example_Secrets_2() {
    print(Secrets.token().count)                       // 47: "she_" and 43 base64url characters
    print(Secrets.canonicalCode("7kq2m x9d4f"))        // 7KQ2M-X9D4F
}

// Sources/ShopHub/Identity/Secrets.swift #3
@MainActor func example_Secrets_3() {
    let key = AddressKey.random()
    let kept = key.hash("203.0.113.7")
    print(kept == key.hash("203.0.113.7"), kept == TokenHash(of: "203.0.113.7"))   // true false
}

// Sources/ShopHubServer/Application+build.swift #1
@MainActor func example_ApplicationBuild_1() async throws {
    var configuration = HubConfiguration()
    configuration.storage = .files(directory: "hub-data")
    let app = try await buildApplication(configuration)
    try await app.runService()             // until SIGTERM or SIGINT
}

// Sources/ShopHubServer/HubConfiguration.swift #1
@MainActor func example_HubConfiguration_1() {
    var configuration = HubConfiguration()
    configuration.port = 0                                  // any free port
    configuration.storage = .files(directory: "hub-data")
    configuration.limits.maxWaitSeconds = 25
}

// Sources/ShopHubServer/PostgresStorageService.swift #1
@MainActor func example_PostgresStorageService_1() throws {
    let storage = try PostgresHubStorage(url: "postgres://hub@db/shop", logger: Logger(label: "shop-hub"))
    var app = Application(router: HubRoutes(storage: storage).router())
    app.addServices(PostgresStorageService(storage: storage))
    app.beforeServerStarts { try await PostgresStorageService(storage: storage).prepare() }
}

@Suite("the hub's DocC examples")
struct DocExampleTests {
    static let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every example in a doc comment under Server/Sources is compiled here, line for line; and says what it prints")
    func everyDocExampleIsCompiled() throws {
        let docs = try DocExampleCheck.docExamples(sources: Self.server.appendingPathComponent("Sources"))
        let compiled = try DocExampleCheck.compiledExamples(in: Self.server.appendingPathComponent("Tests/ShopHubTests/DocExamples.swift"))
        #expect(docs.count >= 10)
        for (key, lines) in docs {
            #expect(compiled[key] == lines, "\(key): the doc example and its compiled copy differ")
        }
        #expect(Set(compiled.keys) == Set(docs.map(\.key)))
        // What the examples say they print.
        #expect(Secrets.token().count == 47 && Secrets.canonicalCode("7kq2m x9d4f") == "7KQ2M-X9D4F")
        let refusal = HubError.forbidden("x")
        #expect(refusal.status.code == 403 && refusal.code == "forbidden")
        struct Status: ResponseEncodable { let status: String }
        #expect(try AnswerEncoder.json(Status(status: "ok")) == Array("{\"status\":\"ok\"}\n".utf8))
        #expect(HubError.bounded(String(repeating: "a", count: 70_000)) == String(repeating: "a", count: 64) + "…")
        let proxies = try TrustedProxies(["10.0.0.0/8", "::1"])
        #expect(proxies.client(peer: "10.0.0.7", forwardedFor: ["203.0.113.9, 10.0.0.3"], forwarded: []) == "203.0.113.9")
        #expect(proxies.client(peer: "198.51.100.4", forwardedFor: ["203.0.113.9"], forwarded: []) == "198.51.100.4")
    }

    @Test("tokens and codes: as long and as random as promised, and a code read back however it is typed")
    func secrets() {
        let tokens = Set((0..<1000).map { _ in Secrets.token() })
        #expect(tokens.count == 1000 && tokens.allSatisfy { $0.hasPrefix("she_") && $0.count == 47 })
        let codes = (0..<1000).map { _ in Secrets.joinCode() }
        #expect(Set(codes).count == 1000)
        for code in codes {
            #expect(code.count == 11 && Secrets.canonicalCode(code.lowercased().replacingOccurrences(of: "-", with: " ")) == code)
            #expect(!code.contains { "ILOU".contains($0) })
        }
        #expect(Secrets.canonicalCode("OIL1O-abcde") == "01110-ABCDE")
        let hash = TokenHash(of: "she_x")
        #expect(hash.matches(TokenHash(of: "she_x")) && !hash.matches(TokenHash(of: "she_y")) && TokenHash(hex: hash.hex) == hash)
    }
}
