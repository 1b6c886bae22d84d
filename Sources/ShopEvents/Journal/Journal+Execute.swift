import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A journal opened for writing: ``Journal`` (the lock held throughout) or
/// ``SharedJournal`` (the lock held only while writing).
///
/// ```swift
/// func buyMilk(in journal: some JournalWriting, milk: ItemID) throws {
///     try journal.execute(.purchaseItem(item: milk))
///     try journal.saveSnapshot()
/// }
/// ```
public protocol JournalWriting: AnyObject {
    var path: String { get }
    /// The household as of the last event read or written.
    var state: ShopState { get }
    var head: JournalHead { get }
    /// Executes commands in order, each against the state the ones before it
    /// left, with one `fsync` for all of them; each accepted or rejected on its own.
    func execute(batch requests: [CommandEnvelope]) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>]
    /// Saves the writer's chain to `<journal>.chain`.
    func saveSnapshot() throws(JournalError)
    /// Releases the file and the lock.
    func close()
}

extension JournalWriting {
    /// Executes one command: its events are durable when this returns.
    /// Throws ``RuleViolation`` if a rule rejects it (nothing is written) or ``JournalError``.
    @discardableResult
    public func execute(_ request: CommandEnvelope) throws -> CommandOutcome {
        try execute(batch: [request])[0].get()
    }

    /// Executes one command with the default actor and a fresh command id.
    @discardableResult
    public func execute(_ command: Command) throws -> CommandOutcome {
        try execute(CommandEnvelope(command))
    }
}

// Deciding commands and writing their events: one command, a batch with
// one `fsync`, all or nothing.
extension Journal: JournalWriting {
    /// Executes commands in order, each against the state the ones before it
    /// left, and makes all of their events durable with one `fsync` (group
    /// commit; a large batch's lines are written in pieces as they are encoded).
    /// Each command is accepted or rejected on its own. If a write or the
    /// `fsync` fails, the file is cut back to where it was and the error is
    /// thrown: none of the batch is acknowledged.
    public func execute(batch requests: [CommandEnvelope]) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        try execute(requests, allOrNothing: false)
    }

    /// The offset just after the last line this journal has read or written.
    var endPosition: JournalPosition {
        JournalPosition(seq: chain.head.seq, offset: file.end, lastLineOffset: chain.lastLineOffset, lastAt: chain.lastAt)
    }

    /// Executes commands in order as one unit: either every one is accepted
    /// and all of their events are written with one `write` and one `fsync`,
    /// or the first rejection is thrown as a ``BatchRejection`` and nothing is
    /// written at all. An import uses it, so that a file is imported whole or not at all.
    ///
    /// ```swift
    /// do { let outcomes = try journal.execute(allOrNothing: commands.map { CommandEnvelope($0) }) }
    /// catch let rejection as BatchRejection { print("command \(rejection.index): \(rejection.violation)") }
    /// ```
    public func execute(allOrNothing requests: [CommandEnvelope]) throws -> [CommandOutcome] {
        // A retry is told from an id reused only once the first command's lines are read back, after the
        // batch is written: here, where nothing may be written for a refusal, they are read first.
        for (index, request) in requests.enumerated() {
            guard let id = request.id, let first = try firstType(of: id) else { continue }
            do { try ShopDecider.requireRetry(request.command.kind, id: id, first: first) } catch {
                throw BatchRejection(index: index, violation: error)
            }
        }
        let saved = chain
        let results = try execute(requests, allOrNothing: true)
        var outcomes: [CommandOutcome] = []
        for (index, result) in results.enumerated() {
            switch result {
            case let .success(outcome): outcomes.append(outcome)
            case let .failure(violation):
                chain = saved
                throw BatchRejection(index: index, violation: violation)
            }
        }
        return outcomes
    }

    func execute(_ requests: [CommandEnvelope], allOrNothing: Bool) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        guard file.isOpen else { throw file.closedError() }
        precondition(file.holdsLock, "\(path): a write without the writer's lock (a SharedJournal takes it for each write)")
        var batch = decideAndWrite(requests, allOrNothing: allOrNothing)
        if batch.bytes > 0, batch.failure == nil {
            do { try file.writer.sync() } catch { batch.failure = error }
        }
        return try results(of: batch)
    }

    /// A batch decided and written but not yet made durable (see ``execute(batches:acknowledge:)``).
    struct WrittenBatch {
        var results: [Result<CommandOutcome, RuleViolation>] = []
        /// Commands the journal held already, answered from the file once it is durable
        /// (and refused, `id_reused`, if the first command with that id was of another type).
        var retries: [(index: Int, command: CommandID, type: CommandType)] = []
        /// With an encoder: the results whose command has events (the encoder gives them back,
        /// as written), and the command records begun, with the index of their first line.
        var withEvents: [Int] = []
        var commandsBegun: [(position: Int, line: Int)] = []
        /// Where its lines begin, and how many bytes they take.
        var start: Int
        var bytes = 0
        /// A write (or, once synced, the `fsync`) failed: how (taken where it failed, `errno` being per thread).
        var failure: JournalError?

        /// The events of the commands that have any, as the encoder wrote them, into their outcomes.
        mutating func fill(_ outcomes: [[RecordedEvent]]) {
            for (index, events) in zip(withEvents, outcomes) {
                guard case let .success(outcome) = results[index] else { continue }
                results[index] = .success(CommandOutcome(command: outcome.command, events: events, isRetry: false))
            }
        }
    }

    /// Decides the batch and writes its lines (no `fsync`); the file's `end` is then theirs.
    /// A large batch is encoded and hashed on a second thread while this one decides (see `LineEncoder`).
    /// Unless all or nothing, that thread also writes the lines as it goes (each command is accepted on
    /// its own, and the `fsync` still comes before any is reported; a crash leaves a torn tail, as always).
    func decideAndWrite(_ requests: [CommandEnvelope], allOrNothing: Bool) -> WrittenBatch {
        notPipelining("execute")
        let startSize = file.end
        let encoder = requests.count >= Self.encodeAsideFrom
            ? LineEncoder(prev: chain.head.hash, start: startSize, writingTo: allOrNothing ? nil : file.writer,
                          capacity: allOrNothing ? 512 * requests.count : LineEncoder.writeChunk + 4096, eventIDs: nil)
            : nil
        defer { encoder?.finish() }   // also on an early return (all or nothing, rejected): the encoding thread is let go
        let headBefore = chain.head
        var out = JSONWriter(capacity: encoder == nil ? 512 * max(requests.count, 1) : 0)
        var batch = WrittenBatch(start: startSize)
        guard decide(requests, into: &batch, encoder: encoder, out: &out, allOrNothing: allOrNothing) else { return batch }
        if let encoder {
            // The lines' hashes and offsets, now known, into the chain; the events, as written, into the outcomes.
            let written = encoder.finish()
            chain.linesWritten(written.lines, before: headBefore, commandsBegun: batch.commandsBegun)
            batch.fill(written.outcomes)
            out = written.out
            (batch.bytes, batch.failure) = (written.streamed, written.failure)
        }
        if batch.failure == nil, !out.isEmpty {
            do { try file.writer.write(out, at: startSize + batch.bytes) } catch { batch.failure = error }
            batch.bytes += out.count
        }
        file.end = startSize + batch.bytes
        return batch
    }

    /// A command id the journal has not seen: an injected generator may repeat
    /// ids after a reopen, and a repeated id would be taken for a retry.
    func freshCommandID(_ chain: borrowing JournalChain) -> CommandID {
        var id: CommandID = options.ids.make()
        while chain.commands[id] != nil { id = options.ids.make() }
        return id
    }

    /// The envelope rules and the command's rules, decided in the domain.
    func decide(_ request: CommandEnvelope, _ chain: borrowing JournalChain) throws(RuleViolation) -> DecidedCommand {
        try ShopDecider.decide(request, chain.state, after: JournalEnd(seq: chain.head.seq, lastAt: chain.lastAt),
                               now: options.clock.now(), defaultActor: options.actor)
    }

    /// Decides `requests` in order, each on the state the ones before left,
    /// into `batch`'s results. Each event goes to `encoder` if there is one
    /// (which claims its id if it was lent the table; its `prev` and line are
    /// set there), else its line is appended to `out` (from `batch.start`)
    /// here. False if all or nothing and a command was rejected: then the
    /// chain is left as it was up to that command (the caller puts it back).
    func decide(_ requests: [CommandEnvelope], into batch: inout WrittenBatch, encoder: LineEncoder?,
                        out: inout JSONWriter, allOrNothing: Bool) -> Bool {
        let claimsHere = encoder?.claims != true
        var lines = 0
        batch.results.reserveCapacity(requests.count)
        // The chain is moved out while the batch is decided and put back after (also on the early
        // return): a local is used in place, where the property would be copied for each access.
        var chain = JournalChain()
        swap(&chain, &self.chain)
        defer { swap(&chain, &self.chain) }
        let seqBefore = chain.head.seq
        for index in requests.indices {
            let request = requests[index]
            let commandID = request.id ?? freshCommandID(chain)
            if let record = chain.commands[commandID] {
                // First made in this batch: by the first request before this one that was accepted
                // with the id (a result for each request before). Made before: checked once read back.
                if record.firstSeq > seqBefore, let first = requests.indices[..<index].first(where: { earlier in
                    guard requests[earlier].id == commandID, case let .success(outcome) = batch.results[earlier] else { return false }
                    return !outcome.isRetry
                }) {
                    do { try ShopDecider.requireRetry(request.command.kind, id: commandID, first: requests[first].command.kind) } catch {
                        batch.results.append(.failure(error))
                        if allOrNothing { return false }
                        continue
                    }
                }
                batch.retries.append((batch.results.count, commandID, request.command.kind))
                batch.results.append(.success(CommandOutcome(command: commandID, events: [], isRetry: true)))
                continue
            }
            do {
                let decided = try decide(request, chain)
                if encoder != nil, !decided.events.isEmpty { batch.withEvents.append(batch.results.count) }
                var recorded = CommandLines.records(of: decided, command: commandID, device: request.device ?? options.device,
                                                    correlation: request.correlation, after: chain.head.seq, prev: chain.head.hash) {
                    var eventID: EventID = options.ids.make()
                    while claimsHere, !chain.claim(eventID) { eventID = eventID.replacement() }
                    return eventID
                }
                if let encoder {
                    // Moved to the encoder, which gives them back in the command's outcome with their `prev` (and ids, if taken).
                    for r in recorded {
                        if let begun = chain.appendedUnencoded(r) { batch.commandsBegun.append((begun, lines)) }
                        encoder.push(r)
                        lines += 1
                    }
                    recorded = []
                } else {
                    for index in recorded.indices {
                        let (lineStart, hash) = CommandLines.append(&recorded[index], after: chain.head.hash, to: &out)
                        chain.appended(recorded[index], lineHash: hash, offset: batch.start + lineStart)
                    }
                }
                batch.results.append(.success(CommandOutcome(command: commandID, events: recorded, isRetry: false)))
            } catch {
                batch.results.append(.failure(error))
                if allOrNothing { return false }   // nothing written; the caller puts the chain back as it was
            }
        }
        return true
    }

    /// A written batch, made durable: its results (retries answered from the
    /// file). If a write or its `fsync` failed, the file is cut back to where
    /// the batch began (and the chain rebuilt from it) and the error thrown.
    func results(of batch: WrittenBatch) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        if let failure = batch.failure {
            rollBack(to: batch.start)
            throw failure
        }
        var results = batch.results
        for (index, command, type) in batch.retries {
            // Looked up now: a command repeated within the batch has its offset only once its lines are encoded.
            guard let record = chain.commands[command] else { continue }
            let events = try ReadBack.events(in: path, at: record.offset, firstSeq: record.firstSeq, count: record.count)
            if let last = events.last {
                do { try ShopDecider.requireRetry(type, id: command, first: CommandType(endingWith: last.event.kind)) } catch {
                    results[index] = .failure(error)
                    continue
                }
            }
            results[index] = .success(CommandOutcome(command: command, events: events, isRetry: true))
        }
        return results
    }

    /// The type of the command first made with `id` (that of its last event), if the journal holds it.
    func firstType(of id: CommandID) throws(JournalError) -> CommandType? {
        guard let record = chain.commands[id],
              let last = try ReadBack.events(in: path, at: record.offset, firstSeq: record.firstSeq, count: record.count).last else { return nil }
        return CommandType(endingWith: last.event.kind)
    }
}
