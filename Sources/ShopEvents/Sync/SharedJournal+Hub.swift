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
        let known = try records(of: ids)
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
        try writeDurably(out, at: start)
        return decided
    }

    /// The records of those of `ids` the journal holds, each with its type (its last event's, read back).
    func records(of ids: [CommandID]) throws(JournalError) -> [CommandID: HubRules.CommandRecord] {
        var known: [CommandID: HubRules.CommandRecord] = [:]
        for id in ids where known[id] == nil {
            guard let record = chain.commands[id],
                  let last = try ReadBack.events(in: path, at: record.offset, firstSeq: record.firstSeq, count: record.count).last else { continue }
            known[id] = HubRules.CommandRecord(first: record.firstSeq, count: record.count, type: CommandType(endingWith: last.event.kind))
        }
        return known
    }

    /// ``HubJournalFile/append(_:expected:checked:)`` with the lock held: lines decided elsewhere (on
    /// another copy of the state) checked against the head, the command records and the event ids,
    /// folded into the chain, written and `fsync`ed.
    func append(_ lines: [HubRules.Line], expected: JournalHead, checked: [CommandID]) throws(JournalError) -> HubJournalFile.Appended {
        guard file.isOpen else { throw file.closedError() }
        notPipelining("execute")
        guard chain.head == expected else { return .headMoved(chain.head) }
        if checked.contains(where: { chain.commands[$0] != nil }) { return .recorded }
        // Lines made from another copy of the state: each must follow the one before (seq, prev,
        // times never going back), as a reader will check. Lines that do not are written nowhere:
        // the driver is told the head moved and decides again under the lock.
        guard Self.follow(lines, head: chain.head, lastAt: chain.lastAt) else { return .headMoved(chain.head) }
        var ids = chain.lendEventIDs()
        let fresh = !lines.contains { ids.contains($0.event.id) } && Set(lines.map(\.event.id)).count == lines.count
        if fresh { for line in lines { _ = ids.insert(line.event.id) } }
        chain.returnEventIDs(ids)
        guard fresh else { return .eventIDTaken }
        let start = file.end
        var out = JSONWriter(capacity: lines.reduce(0) { $0 + $1.bytes.count + 1 })
        for line in lines {
            chain.appended(line.event, lineHash: line.hash, offset: start + out.count)
            out.append(contentsOf: line.bytes)
            out.append(0x0A)
        }
        try writeDurably(out, at: start)
        return .written
    }

    /// Whether `lines` continue the chain at `head`: seq one more each, `prev` the hash of the line
    /// before, `at` never earlier than the line before.
    static func follow(_ lines: [HubRules.Line], head: JournalHead, lastAt: Timestamp?) -> Bool {
        var seq = head.seq, hash = head.hash, at = lastAt
        for line in lines {
            guard line.event.seq == seq + 1, line.event.prev == hash, at.map({ line.event.at >= $0 }) ?? true else { return false }
            seq = line.event.seq
            hash = line.hash
            at = line.event.at
        }
        return true
    }

    /// `out` written at `start` (the end) and `fsync`ed; if either fails, the file is cut back to
    /// `start` (the chain read again) and the error thrown: nothing is acknowledged.
    private func writeDurably(_ out: JSONWriter, at start: Int) throws(JournalError) {
        guard !out.isEmpty else { return }
        do {
            try file.writer.write(out, at: start)
            file.end = start + out.count
            try file.writer.sync()
        } catch {
            rollBack(to: start)
            throw error
        }
    }
}
