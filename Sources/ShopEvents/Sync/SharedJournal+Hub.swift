import Foundation

extension SharedJournal {
    /// A push of the hub (``SyncHub``) under the writer's lock, what others appended folded first:
    /// `decide` (``HubRules/push(_:on:known:now:ids:claim:)``) is given the journal's state at its
    /// head, the records of those of `ids` it holds, and the check of an event id's freshness; the
    /// lines it decides are appended with one `fsync`. If the write or the `fsync` fails, the file is
    /// cut back to where it was and the error thrown: nothing is acknowledged. The answer's
    /// `fold.state` is left empty: the journal keeps the state.
    func appendDecided(ids: [CommandID],
                       _ decide: (consuming HubRules.Fold, [CommandID: HubRules.CommandRecord], (EventID) -> Bool) -> HubRules.Decided)
    throws(JournalError) -> HubRules.Decided {
        try lockAndCatchUp()
        defer { unlockAfterWriting() }
        return try journal.appendDecided(ids: ids, decide)
    }
}

extension Journal {
    /// ``SharedJournal/appendDecided(ids:_:)`` with the lock held.
    func appendDecided(ids: [CommandID],
                       _ decide: (consuming HubRules.Fold, [CommandID: HubRules.CommandRecord], (EventID) -> Bool) -> HubRules.Decided)
    throws(JournalError) -> HubRules.Decided {
        guard file.isOpen else { throw file.closedError() }
        notPipelining("execute")
        var known: [CommandID: HubRules.CommandRecord] = [:]
        for id in ids where known[id] == nil {
            guard let record = chain.commands[id],
                  let last = try ReadBack.events(in: path, at: record.offset, firstSeq: record.firstSeq, count: record.count).last else { continue }
            known[id] = HubRules.CommandRecord(first: record.firstSeq, count: record.count, type: CommandType(endingWith: last.event.kind))
        }
        // The chain's state, lent (not copied: held once, the rules change it in place) and taken back below.
        var decided = decide(HubRules.Fold(state: chain.lendState(), head: chain.head, lastAt: chain.lastAt), known) { self.chain.claim($0) }
        let start = file.end
        var out = JSONWriter(capacity: decided.lines.reduce(0) { $0 + $1.bytes.count + 1 })
        var placed: [(event: RecordedEvent, hash: SHA256Digest, offset: Int)] = []
        placed.reserveCapacity(decided.lines.count)
        for line in decided.lines {
            placed.append((line.event, line.hash, start + out.count))
            out.append(contentsOf: line.bytes)
            out.append(0x0A)
        }
        var state = ShopState.compact
        swap(&state, &decided.fold.state)
        chain.appended(folded: placed, state: state)
        // The state stays the chain's alone (`decided.fold.state` is left empty): shared, its next change would copy it.
        guard !out.isEmpty else { return decided }
        do {
            try file.writer.write(out, at: start)
            file.end = start + out.count
            try file.writer.sync()
        } catch {
            rollBack(to: start)
            throw error
        }
        return decided
    }
}
