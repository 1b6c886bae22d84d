import Foundation
import ShopEvents

// Sync through a hub (docs/SYNC.md): `hub` answers the protocol on standard
// input and output, `clone` makes a replica, `sync` brings one up to date.

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
      --actor NAME     who this device says it is to the hub (default: the actor a hosted hub enrolled it as, else $USER)
    \(JournalOptions.help)
    """

    var actor: String?
    var listRejected: Bool
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        listRejected = arguments.flag("--rejected")
        actor = listRejected ? nil : try ToolJournal.actor(&arguments, journal: options.journal)
    }

    func run() throws -> Int32 {
        let journal = options.journal
        guard Replica.isReplica(journal) else {
            throw ToolFailure(message: "\(journal) is not a replica (there is no \(journal).sync): make one with `shop-replay clone --hub COMMAND --journal \(journal)`", exitCode: 2)
        }
        guard let actor else { return try showRejected(journal) }
        let report = try HubLink.sync(journal: journal, settings: try SyncSettings.load(journal: journal), actor: actor)
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
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        do {
            // The task set it before it signalled.
            guard let result = outcome.withLock({ $0 }) else { preconditionFailure("read before the task set it") }
            return try result.get()
        } catch let failure as SyncFailure where ["hub_unreachable", "bad_response"].contains(failure.code) {
            throw ToolFailure(message: "\(failure.code): \(failure.message) — nothing was lost: run sync again", exitCode: 3)
        } catch let failure as SyncFailure where ["unauthorized", "forbidden", "unknown_household", "unknown_invite"].contains(failure.code) {
            throw ToolFailure(message: "\(failure.code): the hub refused this device: \(failure.message); nothing was changed", exitCode: 3)
        } catch let failure as SyncFailure where failure.code == "no_journal" {
            throw ToolFailure(message: "\(failure.code): \(failure.message); nothing was changed", exitCode: 3)
        }
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
        if case let .purchaseItem(purchase, _, _, _, _, _, _, _) = request.command { return purchase.description }
        return request.id?.description ?? ""
    }
}
