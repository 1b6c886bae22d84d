import Foundation
import ShopEvents

// Sync through a hub (SPEC section 7): `hub` answers the protocol on standard
// input and output, `clone` makes a replica, `sync` brings one up to date.

struct Hub: ToolCommand {
    static let name = "hub"
    static let summary = "serve a journal to devices: the sync protocol on standard input and output"
    static let help = """
    Usage: shop-replay hub --journal PATH [--as ACTOR] [--create]

    Speaks the sync protocol (one JSON request a line, one answer each) on
    standard input and output until the end of input, like git-upload-pack:
    `ssh host shop-replay hub --journal /srv/home.ndjson --as ben` is a
    remote hub, and an ssh key's forced command is its authentication. Pulls
    read without the lock; a push takes the writer's lock, decides its commands
    in order and makes the accepted ones durable with one fsync. Many hubs may
    serve one journal at once. A malformed request, one over 1 MiB or a push
    of more than 1,000 commands is answered bad_request; nothing is written.

    A hub serves a journal that exists: where there is none at PATH (a typo,
    a journal moved away) every request is answered no_journal, naming the
    path, and the hub exits 3 at the end of input. A new hub is asked for on
    purpose, with --create.

    Exit codes: 0 served; 3 there was no journal at PATH, or it could not be read or written.

    Options:
      --create         start a new hub: make an empty journal at PATH if there is none
      --as ACTOR       commands naming another actor are refused (forbidden);
                       one naming none is recorded as ACTOR
      --journal PATH   the hub's journal (default: $SHOP_JOURNAL, else ./shop.ndjson)
    """

    var journal: String
    var actor: String?
    var create: Bool

    init(_ arguments: inout Arguments) throws(UsageError) {
        journal = try JournalOptions(&arguments).journal
        create = arguments.flag("--create")
        actor = try arguments.option("--as", "ACTOR")
        if let actor {
            do { try Limits.checkActor(actor) } catch { throw UsageError(message: "--as: \(error.code): \(error.message)") }
        }
    }

    func run() throws -> Int32 {
        // A pushed command carries its device's actor; the hub's own is used by no command it records.
        let options = Journal.Options(actor: actor ?? ToolJournal.userName ?? "hub", lockTimeout: 30)
        if create, access(journal, F_OK) != 0 {
            try Journal.openShared(path: journal, options: options).close()
        }
        let hub = SyncHub(journal: journal, as: actor, options: options)
        let missing = !hub.hasJournal
        if missing { Tool.fail("hub: there is no journal at \(hub.path); every request is answered no_journal (a new hub: --create)") }
        try hub.serve(input: 0, output: 1)
        return missing ? 3 : 0
    }
}

struct Clone: ToolCommand {
    static let name = "clone"
    static let summary = "make a new replica of a hub's journal on this device"
    static let help = """
    Usage: shop-replay clone --hub COMMAND --journal J [--new-hub] [--device NAME] [--actor NAME] [--json]

    Makes J a replica of the hub's journal and syncs it once. Refused if J (or
    J.sync) exists. COMMAND is run by /bin/sh -c and speaks the protocol on its
    standard input and output (`ssh host shop-replay hub --journal …`); a plain
    path to a journal means `shop-replay hub --journal PATH` on this machine.
    J.sync records the hub and the device; commands applied to J go to
    J.outbox until `shop-replay sync` sends them.

    A hub with no journal at its path is refused (exit 3, naming the path),
    and nothing is made. A new household's first device starts a new hub on
    purpose: --new-hub with a plain path, or `shop-replay hub --journal P --create`
    as COMMAND; cloning an empty hub says so.

    Exit codes: 0 cloned; 1 the hub refused a command; 3 the hub could not be
    reached, or has no journal.

    Options:
      --hub COMMAND    how to reach the hub
      --new-hub        the hub is a plain path where a new, empty journal is to be made
      --device NAME    this device's name (default: the host's name)
      --actor NAME     who this device says it is to the hub (default: $USER)
    \(JournalOptions.help)
    """

    var hub: String
    var newHub: Bool
    var device: String
    var actor: String
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        newHub = arguments.flag("--new-hub")
        guard let hub = try arguments.option("--hub", "COMMAND"), !hub.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError(message: "--hub COMMAND is required: how to reach the hub (`ssh host shop-replay hub --journal …`, or a journal's path)")
        }
        self.hub = HubCommand.storable(hub)
        if newHub, !HubCommand.isJournalPath(self.hub) {
            throw UsageError(message: "--new-hub takes a plain path to a journal as --hub; with a command, give the hub its own --create")
        }
        device = try arguments.option("--device", "NAME") ?? ProcessInfo.processInfo.hostName
        actor = try ToolJournal.actor(&arguments)
    }

    func run() throws -> Int32 {
        let settings = SyncSettings(hub: hub, device: device)
        let transport = try ProcessTransport(command: HubCommand.shell(hub) + (newHub ? " --create" : ""))
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
           shop-replay sync --rejected [--journal J] [--json]

    One sync of the replica J with the hub J.sync names: pulls the hub's new
    lines (checking the chain of each), pushes J.outbox, and pulls again. A
    purchase the hub refuses on its list (someone bought it, took it off,
    cleared, deleted or purged the list meanwhile) is sent once more as the
    same purchase off any list: a purchase that happened is never lost. Any
    other refusal moves the command to J.rejected, with why. Safe to interrupt
    anywhere and to run again.

    With --rejected it does not sync: it lists what the hub has refused (J.rejected),
    oldest first, with why; --json gives each as {command, type, error, request}.

    Exit codes: 0 synced; 1 the hub refused a command (see sync --rejected);
    3 the hub could not be reached or the replica could not be written
    (nothing is lost: run it again).

    Options:
      --actor NAME     who this device says it is to the hub (default: $USER)
    \(JournalOptions.help)
    """

    var actor: String?
    var listRejected: Bool
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        listRejected = arguments.flag("--rejected")
        actor = listRejected ? nil : try ToolJournal.actor(&arguments)
    }

    func run() throws -> Int32 {
        let journal = options.journal
        guard Replica.isReplica(journal) else {
            throw ToolFailure(message: "\(journal) is not a replica (there is no \(journal).sync): make one with `shop-replay clone --hub COMMAND --journal \(journal)`", exitCode: 2)
        }
        guard let actor else { return try showRejected(journal) }
        let settings = try SyncSettings.load(journal: journal)
        let transport = try ProcessTransport(command: HubCommand.shell(settings.hub))
        defer { transport.close() }
        let report = try SyncRun.wait {
            try await SyncClient(journal: journal, options: Journal.Options(actor: actor)).sync(over: transport)
        }
        return SyncRun.show(report, json: options.json, cloned: false)
    }
}

extension SyncCommand {
    /// `sync --rejected`: what the hub refused, from `J.rejected`, oldest first.
    func showRejected(_ journal: String) throws -> Int32 {
        let rejected = try RejectedCommand.all(journal: journal)
        let out = Output(json: options.json)
        if options.json {
            out.emit(.object([("rejected", .array(rejected.map { SyncRun.refusal($0, withRequest: true) })), ("count", .int(rejected.count))]))
        } else if rejected.isEmpty {
            out.line("nothing was rejected: the hub has taken every command this device sent")
        } else {
            out.line((["the hub refused \(Format.count(rejected.count, "command")) (kept in \(journal).rejected):"]
                     + rejected.map { "  \($0.command.command.typeName) \($0.command.id?.description ?? "")  \($0.error.code): \($0.error.message)" })
                .joined(separator: "\n"))
        }
        return 0
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

    static func isJournalPath(_ hub: String) -> Bool {
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
        } catch let failure as SyncFailure where failure.code == "no_journal" {
            throw ToolFailure(message: "\(failure.code): \(failure.message); nothing was changed", exitCode: 3)
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
        func refusal(_ rejected: RejectedCommand) -> JSONValue { Self.refusal(rejected, withRequest: false) }
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
            if cloned, report.head.seq == 0 {
                lines.append("          the hub's journal is empty: a new hub, with no household yet (this device's CreateHousehold starts it)")
            }
            lines.append("pending   \(report.pending)")
            lines.append("head      \(report.head.seq):\(report.head.hash.hex)")
            out.line(lines.joined(separator: "\n"))
        }
        return report.rejected.isEmpty ? 0 : 1
    }

    /// A refused command as JSON; with the request as it was sent, for `sync --rejected`.
    static func refusal(_ rejected: RejectedCommand, withRequest: Bool) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("command", .string(rejected.command.id?.description ?? "")), ("type", .string(rejected.command.command.typeName)),
            ("error", .object([("code", .string(rejected.error.code)), ("message", .string(rejected.error.message))])),
        ]
        if withRequest { pairs.append(("request", (try? JSONValue.parse(CommandCodec.encode(rejected.command))) ?? .null)) }
        return .object(pairs)
    }

    private static func purchaseID(_ request: CommandEnvelope) -> String {
        if case let .purchaseItem(purchase, _, _, _, _, _, _) = request.command { return purchase.description }
        return request.id?.description ?? ""
    }
}
