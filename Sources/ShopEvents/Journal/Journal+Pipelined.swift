import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The pipelined append: a batch's encoding, writing and `fsync` on a thread
// of their own while the next batch is decided.
extension Journal {
    /// Executes batches of commands one after the other, each as
    /// ``execute(batch:)`` does, with one `fsync` a batch (group commit), but
    /// pipelined: while one batch is encoded, written and made durable on
    /// threads of their own, the next batch is decided. `acknowledge` is
    /// called on this thread with each batch's results, in order, once that
    /// batch is durable, never before. If a write or an `fsync` fails, the
    /// file is cut back to the end of the last acknowledged batch and the
    /// error is thrown. If `acknowledge` throws, the run stops and the error
    /// is rethrown; the batch decided meanwhile is kept, made durable but not
    /// reported. A ``SharedJournal`` holds the writer's lock for the whole run.
    /// While `acknowledge` runs, the next batch is decided already: the
    /// journal's ``state`` includes it, and its ``head`` is known only once
    /// the run returns. Writing to the journal or closing it from
    /// `acknowledge` stops the program (a precondition): its encoding thread
    /// is still writing.
    ///
    /// ```swift
    /// let batches = [commands.map { CommandEnvelope($0) }]
    /// try journal.execute(batches: batches) { results in print(results.count, "commands durable") }
    /// ```
    public func execute<Batches: Sequence>(batches: Batches,
                                           acknowledge: ([Result<CommandOutcome, RuleViolation>]) throws -> Void) throws
    where Batches.Element == [CommandEnvelope] {
        guard file.isOpen else { throw file.closedError() }
        notPipelining("execute(batches:)")
        // One encoding thread for the whole run, which also claims the events' ids (the chain lends it
        // the table) and, at each batch's end, starts its `fsync` on a queue of their own. This thread
        // decides batch after batch without waiting for either; a batch lands (is waited for, its lines'
        // offsets and events taken in, its retries answered) only once the next one is decided.
        let syncs = DispatchQueue(label: "ShopEvents.Journal.fsync")
        pipelining = true
        let encoder = LineEncoder(prev: chain.head.hash, start: file.end, writingTo: file.writer, capacity: LineEncoder.writeChunk + 4096,
                                  eventIDs: chain.lendEventIDs(), syncingOn: syncs)
        var end = chain.writtenEnd
        var running = true
        // Lets the encoding thread go, after it has encoded what it was given, and waits for the `fsync`s it started.
        func stop() {
            guard running else { return }
            running = false
            pipelining = false
            let finished = encoder.finish()
            chain.returnEventIDs(encoder.takeEventIDs())
            syncs.sync {}
            file.end = finished.end
        }
        var inFlight: (batch: WrittenBatch, encoded: EncodedBatch)?
        // The batch in flight, durable; a failed one is cut back and thrown (with whatever was written after it).
        func land() throws(JournalError) -> [Result<CommandOutcome, RuleViolation>]? {
            guard let (landing, encoded) = inFlight else { return nil }
            var batch = landing
            inFlight = nil
            encoded.done.wait()
            if let failure = encoded.failure {
                stop()
                batch.start = encoded.start
                batch.failure = failure
                return try results(of: batch)   // cuts the file back and throws
            }
            chain.setOffsets(encoded.lines, commandsBegun: batch.commandsBegun)
            end.advance(over: encoded.lines)
            batch.fill(encoded.outcomes)
            encoded.outcomes = []
            return try results(of: batch)
        }
        var dummy = JSONWriter(capacity: 0)
        do {
            defer {
                // Unless cut back (the chain then read again from the file), the chain's end is that of the last line landed.
                if running {
                    stop()
                    chain.writtenEnd = end
                }
            }
            do {
                for requests in batches {
                    var batch = WrittenBatch(start: -1)
                    _ = decide(requests, into: &batch, encoder: encoder, out: &dummy, allOrNothing: false)
                    let encoded = EncodedBatch()
                    encoder.endBatch(encoded)
                    let previous = try land()
                    inFlight = (batch, encoded)
                    if let previous { try acknowledge(previous) }
                }
                if let last = try land() { try acknowledge(last) }
            } catch {
                _ = try? land()
                throw error
            }
        }
    }

    /// From how many commands a batch is encoded and hashed on a second thread.
    static let encodeAsideFrom = 64
}
