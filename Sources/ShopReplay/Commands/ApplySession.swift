import Foundation
import ShopEvents

/// One `apply` run's commands on their way to the journal: those read and
/// waiting for their batch, and the answer to each, in order.
final class ApplySession {
    let target: CommandWriter
    let out: Output
    let json: Bool
    /// Who issues the commands that name no actor; with none, those are refused (`missing_actor`).
    let actor: String?
    /// What opening the journal cut, said with the next answer (`--json`).
    final class Recovery {
        var json: JSONValue?
    }

    let recovery: Recovery
    private(set) var rejected = 0
    private(set) var pending: [CommandEnvelope] = []

    init(target: CommandWriter, out: Output, json: Bool, actor: String?, recovery: Recovery) {
        self.target = target
        self.out = out
        self.json = json
        self.actor = actor
        self.recovery = recovery
    }

    func answer(_ pairs: [(String, JSONValue)], text: String) {
        if json {
            out.emitLine(.object(pairs + (recovery.json.map { [("recoveredTornTail", $0)] } ?? [])))
            recovery.json = nil
        } else {
            out.line(text)
        }
    }

    func rejectedLine(_ command: CommandID?, _ code: String, _ message: String) {
        rejected += 1
        answer([("ok", false), ("command", .optional(command?.description)),
                ("error", .object([("code", .string(code)), ("message", .string(message))]))],
               text: "rejected  \(command?.description ?? "(no id)")  \(code): \(message)")
    }

    /// Writes the commands waiting, and answers each.
    func flush() throws {
        guard !pending.isEmpty else { return }
        let results = try target.execute(pending)
        for (request, result) in zip(pending, results) {
            switch result {
            case let .success(outcome) where outcome.isPending: answerPending(outcome)
            case let .success(outcome): answerWritten(outcome, request)
            case let .failure(violation): rejectedLine(request.id, violation.code, violation.message)
            }
        }
        pending.removeAll()
    }

    private func answerPending(_ outcome: CommandOutcome) {
        let created = outcome.created
        answer([("ok", true), ("command", .string(outcome.command.description)), ("seqs", []),
                ("created", .object(created.map { ($0.kind, .string($0.id.uuidString)) })), ("pending", true)]
               + (outcome.isRetry ? [("retry", true)] : []),
               text: "pending   \(outcome.command)" + created.map { "  \($0.kind) \($0.id.uuidString)" }.joined()
                   + "  (in the outbox: `shop-replay sync` sends it)")
    }

    private func answerWritten(_ outcome: CommandOutcome, _ request: CommandEnvelope) {
        let created = outcome.created
        // Which purchase a revert took back: it may have been named by its item or the first digits of its id.
        var reverted: (id: PurchaseID, item: String)?
        if case let .revertPurchase(purchase) = request.command {
            reverted = (purchase, target.state.purchases[purchase].flatMap { target.state.items[$0.item]?.name } ?? "?")
        }
        answer([("ok", true), ("command", .string(outcome.command.description)), ("seqs", .array(outcome.seqs.map(JSONValue.int))),
                ("created", .object(created.map { ($0.kind, .string($0.id.uuidString)) }))]
               + (reverted.map { [("reverted", .string($0.id.description))] } ?? [])
               + (outcome.isRetry ? [("retry", true)] : []),
               text: "ok        \(outcome.command)  seq \(outcome.seqs.map(String.init).joined(separator: ","))"
                   + created.map { "  \($0.kind) \($0.id.uuidString)" }.joined()
                   + (reverted.map { "  reverted purchase \($0.id) (\(Limits.visible($0.item)))" } ?? "")
                   + (outcome.isRetry ? "  (already applied)" : ""))
    }

    /// Decodes one line into a command waiting for its batch, or answers its rejection.
    func read(_ bytes: [UInt8], lineNumber: Int) throws {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
        // Names mean what they mean after the commands before this one, and after other writers'.
        // A retry is answered from the journal's record: the names it used may name nothing now.
        var names: CommandCatalog.Names?
        if CommandCatalog.usesNames(bytes) {
            try flush()
            let state = try target.refreshedState()
            names = CommandCatalog.commandID(in: bytes).map { target.holds(command: $0) } == true ? .notLookedUp : .resolve(state)
        }
        do {
            let household = target.replica?.household
            var request = try names.map { try CommandCatalog.decode(bytes, names: $0, ids: .random, household: household) }
                ?? CommandCodec.decode(bytes, ids: .random, household: household)
            if request.actor == nil, actor == nil {
                // No one to record as its writer: refused, never made up (a retry is answered all the same).
                try flush()
                _ = try target.refreshedState()
                guard let id = request.id, target.holds(command: id) else {
                    rejectedLine(request.id, "missing_actor", "line \(lineNumber): the command names no \"actor\", and there is no --actor and $USER is not set: give \"actor\" in the command or --actor NAME; nothing was written for it")
                    return
                }
            }
            if request.id == nil { request.id = CommandID() }
            pending.append(request)
        } catch let error as ShopError {
            try flush()
            rejectedLine(CommandCatalog.commandID(in: bytes), error.code, "line \(lineNumber): \(error.message)")
        }
    }
}
