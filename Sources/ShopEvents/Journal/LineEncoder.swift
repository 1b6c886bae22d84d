import Foundation

/// Encodes and hashes a batch's lines on a thread of its own while the
/// journal decides the commands that follow: a line needs the hash of the
/// line before (its `prev`), deciding needs only the state, so the two run
/// side by side. Events are handed over ``handOverEvery`` at a time: few
/// enough to keep the two threads close, enough that the lock is rare; ``finish()`` waits for the last line and gives
/// the bytes, each line's offset and hash, and the events as written. Given a
/// file, it also writes the lines to it, ``writeChunk`` bytes at a time while
/// they are still in the cache, and gives back only how many it wrote.
///
/// A pipelined run (``Journal/execute(batches:acknowledge:)``) keeps one for
/// all its batches and marks each batch's end (``endBatch(_:)``): there the
/// encoder writes what it holds, fills in the ``EncodedBatch``, and starts
/// the batch's `fsync` on the queue it was given, while it goes on with the
/// next batch's lines.
final class LineEncoder: @unchecked Sendable {
    // @unchecked: `queue`, `spare`, `ends`, `finished` and `running` are guarded by `condition`;
    // `staged` and `pushed` are the caller's; the rest is the encoding thread's until
    // `finish()` has waited for it (an `EncodedBatch` is the caller's once it is `done`).
    // `@exclusivity(unchecked)`: those each thread alone touches, many times an event, go
    // without the runtime's check of overlapping accesses, which they cannot have.
    private let condition = NSCondition()
    /// The events handed over, in the buffers they were staged in (moved, not copied).
    private var queue: [[RecordedEvent]] = []
    /// Buffers the encoding thread has emptied, for the caller to stage in again.
    private var spare: [[RecordedEvent]] = []
    /// Batch ends handed over: after how many events each comes.
    private var ends: [(after: Int, batch: EncodedBatch)] = []
    private var finished = false
    private var running = true
    @exclusivity(unchecked) private var staged: [RecordedEvent] = []
    @exclusivity(unchecked) private var pushed = 0
    @exclusivity(unchecked) private var out: JSONWriter
    @exclusivity(unchecked) private var lines: [(offset: Int, hash: SHA256Digest)] = []
    @exclusivity(unchecked) private var prev: SHA256Digest
    private let start: Int
    private let file: AppendFile.Writer?
    private let syncs: DispatchQueue?
    private var streamed = 0
    /// Where the current batch's lines begin (a pipelined run).
    private var batchStart: Int
    private var failure: JournalError?
    /// The journal's event ids, if lent: then each line's id is claimed here.
    @exclusivity(unchecked) private var eventIDs: IDIndex<EventKind>?
    /// Whether the events' ids are claimed here.
    let claims: Bool
    /// The events as written (`prev` set, and a fresh id where the journal held theirs already),
    /// one array a command: the outcomes' events.
    @exclusivity(unchecked) private var outcomes: [[RecordedEvent]] = []
    @exclusivity(unchecked) private var current: [RecordedEvent] = []
    private var result: Finished?

    /// How many bytes are written at a time when writing as it goes.
    static let writeChunk = 64 << 10

    /// How many events the deciding thread hands over at a time.
    static let handOverEvery = 32

    /// The encoded lines: their bytes (those not written yet), each line's offset and hash,
    /// how many bytes were written to the file, and how a write failed if one did; the
    /// events as written, one array for each command that has any, in order (since the
    /// last batch's end, in a pipelined run); the offset after the last byte written.
    struct Finished {
        var out: JSONWriter
        var lines: [(offset: Int, hash: SHA256Digest)]
        var streamed: Int
        var failure: JournalError?
        var outcomes: [[RecordedEvent]]
        var end: Int
    }

    /// `syncingOn`: the queue for each batch's `fsync` in a pipelined run (with a file).
    init(prev: SHA256Digest, start: Int, writingTo file: AppendFile.Writer?, capacity: Int,
         eventIDs: IDIndex<EventKind>?, syncingOn syncs: DispatchQueue? = nil) {
        self.eventIDs = eventIDs
        claims = eventIDs != nil
        out = JSONWriter(capacity: capacity)
        self.prev = prev
        self.start = start
        batchStart = start
        self.file = file
        self.syncs = syncs
        lines.reserveCapacity(1024)
        staged.reserveCapacity(Self.handOverEvery)
        Thread { [self] in run() }.start()
    }

    /// One more event, its `prev` to be filled in.
    func push(_ recorded: consuming RecordedEvent) {
        staged.append(recorded)
        pushed += 1
        if staged.count == Self.handOverEvery { handOver(ending: nil, finishing: false) }
    }

    /// The end of a batch, after the events pushed so far: `batch` is filled in and `done`
    /// once its lines are written and, if any were, made durable.
    func endBatch(_ batch: EncodedBatch) { handOver(ending: batch, finishing: false) }

    /// Hands over the rest, waits until every line is encoded (and written),
    /// and gives them (the first call; later calls, as on an early return, give the same).
    @discardableResult
    func finish() -> Finished {
        if let result { return result }
        handOver(ending: nil, finishing: true)
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
        if !current.isEmpty { outcomes.append(current) }
        current = []
        let finished = Finished(out: out, lines: lines, streamed: streamed, failure: failure, outcomes: outcomes, end: start + streamed + out.count)
        result = finished
        outcomes = []
        return finished
    }

    /// After ``finish()``: the event-id table, moved out (this keeps no reference to it,
    /// so the journal's next insert does not copy it).
    func takeEventIDs() -> IDIndex<EventKind> {
        finish()
        guard let ids = eventIDs.take() else { preconditionFailure("takeEventIDs() of an encoder that was lent no event ids") }
        return ids
    }

    /// Hands the staged events (and a batch's end, or the end of all) to the encoding thread.
    private func handOver(ending batch: EncodedBatch?, finishing: Bool) {
        condition.lock()
        if finishing { finished = true }
        // The staged buffer goes over whole, and one the encoding thread has emptied takes its place.
        if !staged.isEmpty {
            var full = spare.popLast() ?? []
            swap(&full, &staged)
            queue.append(full)
        }
        if let batch { ends.append((pushed, batch)) }
        condition.broadcast()
        condition.unlock()
        if staged.capacity < Self.handOverEvery { staged.reserveCapacity(Self.handOverEvery) }
    }

    private func run() {
        var chunks: [[RecordedEvent]] = []
        var pendingEnds: [(after: Int, batch: EncodedBatch)] = []
        var taken: [(after: Int, batch: EncodedBatch)] = []
        var encoded = 0
        // The batch ends that come after `encoded` events.
        func closeBatches() {
            while let first = pendingEnds.first, first.after == encoded {
                pendingEnds.removeFirst()
                close(first.batch)
            }
        }
        while true {
            condition.lock()
            while queue.isEmpty, ends.isEmpty, !finished { condition.wait() }
            if queue.isEmpty, ends.isEmpty {
                condition.unlock()
                write()
                condition.lock()
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            swap(&chunks, &queue)
            swap(&taken, &ends)
            condition.unlock()
            pendingEnds.append(contentsOf: taken)
            taken.removeAll(keepingCapacity: true)
            for chunk in chunks.indices {
                for var recorded in chunks[chunk] {
                    closeBatches()
                    while claims, eventIDs?.insert(recorded.id).inserted == false {
                        // An injected generator may repeat ids after a reopen: the replacement the deciding thread would take.
                        recorded.id = recorded.id.replacement()
                    }
                    let (lineStart, hash) = CommandLines.append(&recorded, after: prev, to: &out)
                    prev = hash
                    lines.append((start + streamed + lineStart, hash))
                    // A command's events come one after the other, and the next command's have another id
                    // (a command the journal holds already is a retry, and not encoded again).
                    if let first = current.first, first.command != recorded.command {
                        outcomes.append(current)
                        current = []
                    }
                    current.append(recorded)
                    encoded += 1
                }
                chunks[chunk].removeAll(keepingCapacity: true)
            }
            closeBatches()
            condition.lock()
            spare.append(contentsOf: chunks)
            condition.unlock()
            chunks.removeAll(keepingCapacity: true)
            if out.count >= Self.writeChunk { write() }
        }
    }

    /// A batch's end (pipelined): its lines written, its part filled in, its `fsync` started.
    private func close(_ batch: EncodedBatch) {
        write()
        if !current.isEmpty { outcomes.append(current) }
        current = []
        batch.start = batchStart
        batch.bytes = start + streamed - batchStart
        batch.lines = lines
        batch.outcomes = outcomes
        batch.failure = failure
        lines = []
        lines.reserveCapacity(1024)
        outcomes = []
        batchStart = start + streamed
        if let file, let syncs, batch.bytes > 0, failure == nil {
            syncs.async {
                do throws(JournalError) { try file.sync() } catch { batch.failure = error }
                batch.done.signal()
            }
        } else {
            batch.done.signal()
        }
    }

    /// Writes what is encoded, when writing to a file (after a failure, nothing more).
    private func write() {
        guard let file, !out.isEmpty, failure == nil else { return }
        do { try file.write(out, at: start + streamed) } catch { failure = error }
        streamed += out.count
        out.removeAll()
    }
}

/// A batch of a pipelined run, as the encoding thread wrote it: where its
/// lines begin and how many bytes they take, each line's offset and hash,
/// the events as written (one array for each command that has any), and how
/// a write or its `fsync` failed if one did. The caller reads it once `done`
/// is signalled: after the lines are written and, if any were, synced.
final class EncodedBatch: @unchecked Sendable {
    // @unchecked: written by the encoding thread (and the `fsync` after it) before `done` is signalled, read after.
    var start = 0
    var bytes = 0
    var lines: [(offset: Int, hash: SHA256Digest)] = []
    var outcomes: [[RecordedEvent]] = []
    var failure: JournalError?
    let done = DispatchSemaphore(value: 0)
}
