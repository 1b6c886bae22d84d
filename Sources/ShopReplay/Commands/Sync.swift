import Foundation
import ShopEvents

// Sync through a hub (SPEC section 7): `hub` answers the protocol on standard
// input and output, `clone` makes a replica, `sync` brings one up to date.

struct Hub: ToolCommand {
    static let name = "hub"
    static let summary = "serve a journal to devices: the sync protocol on standard input and output"
    static let help = """
    Usage: shop-replay hub --journal PATH [--as ACTOR]

    Speaks the sync protocol (one JSON request a line, one answer each) on
    standard input and output until the end of input, like git-upload-pack:
    `ssh host shop-replay hub --journal /srv/home.ndjson --as ben` is a
    remote hub, and an ssh key's forced command is its authentication. Pulls
    read without the lock; a push takes the writer's lock, decides its commands
    in order and makes the accepted ones durable with one fsync. Many hubs may
    serve one journal at once. A malformed request, one over 1 MiB or a push
    of more than 1,000 commands is answered bad_request; nothing is written.

    Options:
      --as ACTOR       commands naming another actor are refused (forbidden);
                       one naming none is recorded as ACTOR
      --journal PATH   the hub's journal (default: $SHOP_JOURNAL, else ./shop.ndjson)
    """

    var journal: String
    var actor: String?

    init(_ arguments: inout Arguments) throws(UsageError) {
        journal = try JournalOptions(&arguments).journal
        actor = try arguments.option("--as", "ACTOR")
        if let actor {
            do { try Limits.checkActor(actor) } catch { throw UsageError(message: "--as: \(error.code): \(error.message)") }
        }
    }

    func run() throws -> Int32 {
        let options = Journal.Options(actor: actor ?? ToolJournal.defaultActor, lockTimeout: 30)
        try SyncHub(journal: journal, as: actor, options: options).serve(input: 0, output: 1)
        return 0
    }
}

struct Clone: ToolCommand {
    static let name = "clone"
    static let summary = "make a new replica of a hub's journal on this device"
    static let help = """
    Usage: shop-replay clone --hub COMMAND --journal J [--device NAME] [--actor NAME] [--json]

    Makes J a replica of the hub's journal and syncs it once. Refused if J (or
    J.sync) exists. COMMAND is run by /bin/sh -c and speaks the protocol on its
    standard input and output (`ssh host shop-replay hub --journal …`); a plain
    path to a journal means `shop-replay hub --journal PATH` on this machine.
    J.sync records the hub and the device; commands applied to J go to
    J.outbox until `shop-replay sync` sends them.

    Options:
      --hub COMMAND    how to reach the hub
      --device NAME    this device's name (default: the host's name)
      --actor NAME     who this device says it is to the hub (default: $USER)
    \(JournalOptions.help)
    """

    var hub: String
    var device: String
    var actor: String
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        guard let hub = try arguments.option("--hub", "COMMAND"), !hub.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError(message: "--hub COMMAND is required: how to reach the hub (`ssh host shop-replay hub --journal …`, or a journal's path)")
        }
        self.hub = HubCommand.storable(hub)
        device = try arguments.option("--device", "NAME") ?? ProcessInfo.processInfo.hostName
        actor = try ToolJournal.actor(&arguments)
    }

    func run() throws -> Int32 {
        let settings = SyncSettings(hub: hub, device: device)
        let transport = try ProcessTransport(command: HubCommand.shell(hub))
        defer { transport.close() }
        let journal = options.journal, actor = self.actor
        let report = try SyncRun.wait {
            try await SyncClient.clone(journal: journal, settings: settings, options: Journal.Options(actor: actor), over: transport)
        }
        return SyncRun.show(report, json: options.json, cloned: true)
    }
}

struct SyncCommand: ToolCommand {
    static let name = "sync"
    static let summary = "sync a replica with its hub: pull, push the outbox, pull"
    static let help = """
    Usage: shop-replay sync [--journal J] [--actor NAME] [--json]

    One sync of the replica J with the hub J.sync names: pulls the hub's new
    lines (checking the chain of each), pushes J.outbox, and pulls again. A
    purchase the hub refuses on its list (someone bought it, took it off,
    cleared, deleted or purged the list meanwhile) is sent once more as the
    same purchase off any list: a purchase that happened is never lost. Any
    other refusal moves the command to J.rejected, with why. Safe to interrupt
    anywhere and to run again.

    Exit codes: 0 synced; 1 the hub refused a command (see J.rejected);
    3 the hub could not be reached or the replica could not be written
    (nothing is lost: run it again).

    Options:
      --actor NAME     who this device says it is to the hub (default: $USER)
    \(JournalOptions.help)
    """

    var actor: String
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        actor = try ToolJournal.actor(&arguments)
    }

    func run() throws -> Int32 {
        let journal = options.journal, actor = self.actor
        guard Replica.isReplica(journal) else {
            throw ToolFailure(message: "\(journal) is not a replica (there is no \(journal).sync): make one with `shop-replay clone --hub COMMAND --journal \(journal)`", exitCode: 2)
        }
        let settings = try SyncSettings.load(journal: journal)
        let transport = try ProcessTransport(command: HubCommand.shell(settings.hub))
        defer { transport.close() }
        let report = try SyncRun.wait {
            try await SyncClient(journal: journal, options: Journal.Options(actor: actor)).sync(over: transport)
        }
        return SyncRun.show(report, json: options.json, cloned: false)
    }
}

/// The hub a replica names: a command for `/bin/sh -c`, or a plain path to a journal on this machine.
enum HubCommand {
    /// A path with no spaces that is not an executable file is a journal's path; kept absolute.
    static func storable(_ hub: String) -> String {
        guard isJournalPath(hub) else { return hub }
        return URL(fileURLWithPath: hub).standardizedFileURL.path
    }

    static func shell(_ hub: String) -> String {
        guard isJournalPath(hub) else { return hub }
        return "\(quoted(selfPath)) hub --journal \(quoted(hub))"
    }

    private static func isJournalPath(_ hub: String) -> Bool {
        !hub.contains(where: { $0 == " " || $0 == "\t" }) && !FileManager.default.isExecutableFile(atPath: hub)
    }

    private static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

enum SyncRun {
    /// Runs the sync on the cooperative pool and waits for it on this (the main) thread.
    static func wait(_ body: @escaping @Sendable () async throws -> SyncReport) throws -> SyncReport {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        do {
            return try box.get()
        } catch let failure as SyncFailure where ["hub_unreachable", "bad_response"].contains(failure.code) {
            throw ToolFailure(message: "\(failure.code): \(failure.message) — nothing was lost: run sync again", exitCode: 3)
        }
    }

    final class ResultBox: @unchecked Sendable {
        // @unchecked: set once by the task before the semaphore is signalled, read after the wait.
        private var result: Result<SyncReport, any Error>?
        func set(_ value: Result<SyncReport, any Error>) { result = value }
        func get() throws -> SyncReport { try result!.get() }
    }

    static func show(_ report: SyncReport, json: Bool, cloned: Bool) -> Int32 {
        let out = Output(json: json)
        func refusal(_ rejected: RejectedCommand) -> JSONValue {
            .object([("command", .string(rejected.command.id?.description ?? "")), ("type", .string(rejected.command.command.typeName)),
                     ("error", .object([("code", .string(rejected.error.code)), ("message", .string(rejected.error.message))]))])
        }
        if json {
            out.emit(.object([
                ("pulled", .int(report.pulled)), ("pushed", .int(report.pushed)), ("accepted", .int(report.accepted)),
                ("retriedOffList", .int(report.retriedOffList)), ("retries", .array(report.retries.map(refusal))),
                ("rejected", .array(report.rejected.map(refusal))), ("pending", .int(report.pending)),
                ("head", .object([("seq", .int(report.head.seq)), ("hash", .string(report.head.hash.hex))])),
            ] + (report.recoveredTornTail.map { [("recoveredTornTail", ToolJournal.recoveryJSON($0))] } ?? [])))
        } else {
            var lines = report.recoveredTornTail.map { ["repaired  the replica's end, which a killed sync had left unfinished: \($0.summary)"] } ?? []
            lines += [
                "\(cloned ? "cloned" : "pulled")    \(report.pulled) event\(report.pulled == 1 ? "" : "s") from the hub",
                "pushed    \(report.pushed) command\(report.pushed == 1 ? "" : "s"), \(report.accepted) accepted",
            ]
            for retry in report.retries {
                lines.append("retried   purchase \(purchaseID(retry.command)) off its list: the hub refused it on the list (\(retry.error.code): \(retry.error.message))")
            }
            for rejected in report.rejected {
                lines.append("rejected  \(rejected.command.command.typeName) \(rejected.command.id?.description ?? "")  \(rejected.error.code): \(rejected.error.message)")
            }
            if !report.rejected.isEmpty { lines.append("          (kept in the replica's .rejected file)") }
            lines.append("pending   \(report.pending)")
            lines.append("head      \(report.head.seq):\(report.head.hash.hex)")
            out.line(lines.joined(separator: "\n"))
        }
        return report.rejected.isEmpty ? 0 : 1
    }

    private static func purchaseID(_ request: CommandEnvelope) -> String {
        if case let .purchaseItem(purchase, _, _, _, _, _, _) = request.command { return purchase.description }
        return request.id?.description ?? ""
    }
}
