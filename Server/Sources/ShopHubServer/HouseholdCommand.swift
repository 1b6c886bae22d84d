import Foundation
import Logging
import ShopEvents
import ShopHub

// `shop-hub household …`: the operator's commands, which read the data folder beside a running hub.

func household(_ options: inout Options, level: Logger.Level?) async throws -> Int32 {
    guard !options.words.isEmpty else { throw UsageFailure(message: "household takes list, show, export, verify or import") }
    let verb = options.words.removeFirst()
    let data = try options.value("--data")
    let postgres = try options.value("--postgres") ?? (data == nil ? ProcessInfo.processInfo.environment["DATABASE_URL"] : nil)
    let layout = PostgresHubStorage.Layout(rawValue: try options.value("--postgres-layout") ?? "plain") ?? .plain
    let json = options.flag("--json")
    let out = try options.value("--out")
    let device = try options.value("--device"), actor = try options.value("--actor")
    var household: HouseholdID?
    if verb != "list" {
        guard !options.words.isEmpty, let id = HouseholdID(options.words.removeFirst()) else {
            throw UsageFailure(message: "household \(verb) takes a household id")
        }
        household = id
    }
    let file = verb == "import" ? options.words.isEmpty ? nil : options.words.removeFirst() : nil
    try options.finish()
    var pool: Task<Void, Never>?
    defer { pool?.cancel() }
    let storage: any HubStorage
    if let postgres {
        var quiet = Logger(label: "shop-hub")
        quiet.logLevel = level ?? .error
        try await PostgresHubStorage.check(url: postgres, logger: quiet)
        let database = try PostgresHubStorage(url: postgres, layout: layout, logger: quiet)
        pool = Task { await database.run() }
        try await database.migrate()
        storage = database
    } else if verb == "import" {
        storage = try FileHubStorage(directory: data ?? "shop-hub-data")   // takes the folder's lock: not beside a running hub
    } else {
        storage = try FileHubStorage(readingOnly: data ?? "shop-hub-data")
    }
    switch verb {
    case "list": return try await listHouseholds(storage, json: json)
    case "show": return try await showHousehold(household, storage, json: json)
    case "export":
        guard let household, try await storage.householdExists(household) else { throw HubError.unknownHousehold(household?.description ?? "") }
        let bytes = try await storage.journal(household)
        if let out {
            guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else { throw HubError.unavailable("cannot write \(out)") }
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
        return 0
    case "verify": return try await verifyHousehold(household, storage)
    case "import":
        guard let household, let file else { throw UsageFailure(message: "household import takes a household id and a journal file") }
        guard let contents = FileManager.default.contents(atPath: file) else { throw HubError.unavailable("cannot read \(file)") }
        let report = try JournalVerifier.verify(path: file)
        if let failure = report.failure { throw HubError.badRequest("\(file) does not verify: \(failure.message); nothing was imported") }
        let lines = Array(contents).split(separator: 0x0A).map(Array.init)
        let now = Clock.system.now()
        try await storage.importJournal(household, journal: Array(contents), created: now)
        print("imported \(lines.count) events into household \(household) (head \(report.head))")
        if let device, let actor {
            let token = Secrets.token()
            try await storage.addDevice(DeviceRecord(household: household, name: device, actor: actor, tokenHash: TokenHash(of: token), created: now))
            print("device \(device) enrolled as \(actor); its token, shown once: \(token)")
        }
        return 0
    default:
        throw UsageFailure(message: "household takes list, show, export, verify or import, not \(verb)")
    }
}

/// `household list`: each household, its devices and events.
func listHouseholds(_ storage: any HubStorage, json: Bool) async throws -> Int32 {
    let all = try await storage.households()
    var rows: [JSONValue] = []
    for id in all {
        let devices = try await storage.devices(of: id)
        let head = try await headOf(id, storage)
        rows.append(.object([("household", .string(id.description)), ("devices", .int(devices.count)), ("events", .int(head.seq))]))
        if !json { print("\(id)  \(devices.count) device\(devices.count == 1 ? "" : "s")  \(head.seq) event\(head.seq == 1 ? "" : "s")") }
    }
    if json { emit(.object([("households", .array(rows))])) } else if all.isEmpty { print("no households yet") }
    return 0
}

/// `household show H`: its head, its journal (files), its devices.
func showHousehold(_ household: HouseholdID?, _ storage: any HubStorage, json: Bool) async throws -> Int32 {
    guard let household, try await storage.householdExists(household) else { throw HubError.unknownHousehold(household?.description ?? "") }
    let devices = try await storage.devices(of: household)
    let head = try await headOf(household, storage)
    if json {
        emit(.object([("household", .string(household.description)), ("head", .string(head.description)),
                      ("devices", .array(devices.map { .object([("device", .string($0.name)), ("actor", .string($0.actor)),
                                                               ("created", .string($0.created.description)),
                                                               ("lastSeen", $0.lastSeen.map { .string($0.description) } ?? .null)]) }))]))
    } else {
        print("household \(household)\nhead      \(head)")
        if let path = storage.journalFile(household) { print("journal   \(path)") }
        for d in devices { print("device    \(d.name) (\(d.actor)), enrolled \(d.created), last seen \(d.lastSeen?.description ?? "never")") }
    }
    return 0
}

/// `household verify H`: the journal as it is exported, checked as `shop-replay verify` checks a file.
func verifyHousehold(_ household: HouseholdID?, _ storage: any HubStorage) async throws -> Int32 {
    guard let household, try await storage.householdExists(household) else { throw HubError.unknownHousehold(household?.description ?? "") }
    // The journal as it is exported, checked as `shop-replay verify` checks a file: every line, the chain, every rule.
    let bytes = try await storage.journal(household)
    guard !bytes.isEmpty else {
        print("household \(household) has no events yet")
        return 0
    }
    let copy = FileManager.default.temporaryDirectory.appendingPathComponent("shop-hub-verify-\(UUID().uuidString).ndjson").path
    defer { try? FileManager.default.removeItem(atPath: copy) }
    guard FileManager.default.createFile(atPath: copy, contents: Data(bytes)) else { throw HubError.unavailable("cannot write \(copy)") }
    let report = try JournalVerifier.verify(path: copy)
    if let failure = report.failure {
        print("FAILED: \(failure.message)")
        return 1
    }
    print("ok: \(report.events) events, head \(report.head)")
    return 0
}

/// One JSON line on standard output.
func emit(_ value: JSONValue) { FileHandle.standardOutput.write(Data(SyncWire.line(value))) }

func headOf(_ household: HouseholdID, _ storage: any HubStorage) async throws -> JournalHead {
    guard case let .hello(_, _, head) = try await storage.sync(household, .hello(protocol: SyncWire.protocolVersion, device: "operator", actor: "operator"),
                                                               as: "operator") else { return .empty }
    return head
}
