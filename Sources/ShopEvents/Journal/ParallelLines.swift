import Foundation

/// Reads the complete lines of a journal from an offset on several threads:
/// each worker takes the next chunk of whole lines (claimed in file order under
/// a lock), decodes every line and, for a verified chain, hashes it; the
/// consumer takes the chunks back in file order with ``take()``. Nothing here
/// checks anything between lines (`seq`, `prev`, commands): that stays with
/// the reader's cursor, in order, on the consumer's thread.
///
/// It reads with `pread`, so the descriptor's own offset is left alone, and
/// it stops quietly wherever it cannot go on (a line longer than
/// ``JournalLines/maxLineBytes``, a read error, the end of the complete
/// lines): the reader goes on from there one line at a time, and meets the
/// same condition there and reports it as it always has.
package final class ParallelLines: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `condition`; `fd`, `hashing` and `chunkSize` never change.

    /// A chunk's lines, decoded, from its first line up to the first that is not
    /// an event of this version (which, and all after it, the reader goes on to
    /// read one line at a time: it reports the error or finds the newer line).
    /// Kept side by side, not a structure per line, so that each event is
    /// decoded into its place in `events` and not copied there.
    struct Chunk {
        var events: Events
        /// Where each event's line starts in the file, and its length without the newline.
        var spans: [Span] = []
        /// Each event's line's SHA-256, if the chain is verified; empty otherwise.
        var hashes: [SHA256Digest] = []
        /// Whether a line of the chunk was not an event of this version: reading in parallel ends after `events`.
        var cutShort = false
    }

    /// A chunk's decoded events, each decoded into its place and moved out
    /// once, in order, by the one that folds them (``take(_:)``): neither
    /// copied into the chunk nor out of it. The ones not taken go with it.
    final class Events {
        private let base: UnsafeMutablePointer<RecordedEvent>
        /// How many are there, from the first.
        private(set) var count = 0
        /// How many were moved out, from the first.
        private var taken = 0

        /// Room for `capacity` events, filled by `fill` from the first on: it returns how many it made.
        init(capacity: Int, _ fill: (UnsafeMutablePointer<RecordedEvent>) -> Int) {
            base = .allocate(capacity: capacity)
            count = fill(base)
            precondition(count <= capacity)
        }

        deinit {
            (base + taken).deinitialize(count: count - taken)
            base.deallocate()
        }

        /// The event at `index`, to look at without a copy; not one taken.
        subscript(index: Int) -> UnsafePointer<RecordedEvent> {
            precondition(index >= taken && index < count)
            return UnsafePointer(base + index)
        }

        /// Moves the event at `index` out: the next not taken, each in turn.
        func take(_ index: Int) -> RecordedEvent {
            precondition(index == taken && index < count)
            taken += 1
            return (base + index).move()
        }
    }

    struct Span {
        var offset: Int
        var length: Int
    }

    private let fd: Int32
    private let hashing: Bool
    private let chunkSize: Int
    private let condition = NSCondition()
    private var nextOffset: Int
    private var nextIndex = 0
    /// The index no chunk has: the one after the last, once a worker has found the end.
    private var endIndex: Int?
    private var done: [Int: Chunk] = [:]
    private var taken = 0
    private var stopped = false
    private var running = 0
    /// Chunks claimed by workers and not yet done (the consumer's own are not counted).
    private var inProgress = 0
    /// Chunks claimed but not yet taken, at most: bounds the memory held.
    private static var ahead: Int { 3 }
    /// The consumer's buffer for the chunks it prepares itself while it waits
    /// (``take()``); only the consumer's thread uses it.
    private var helperBuffer: UnsafeMutableRawBufferPointer?

    /// Big enough that a chunk is a few hundred lines, small enough that the
    /// chunks in flight hold little memory.
    package static var defaultChunkSize: Int { 128 << 10 }

    /// One worker a core but the consumer's, one at least, three at most: the
    /// consumer decodes too whenever it would wait (``take()``).
    package static var defaultWorkers: Int { min(max(ProcessInfo.processInfo.activeProcessorCount - 1, 1), 3) }

    /// Starts `workers` threads reading from `offset`.
    init(fd: Int32, from offset: Int, hashing: Bool, chunkSize: Int, workers: Int) {
        self.fd = fd
        self.hashing = hashing
        self.chunkSize = chunkSize
        nextOffset = offset
        running = workers
        for n in 0..<workers {
            let thread = Thread { [self] in work() }
            thread.name = "ShopEvents.lines \(n)"
            thread.start()
        }
    }

    deinit { helperBuffer?.deallocate() }

    /// The next chunk's lines in file order; `nil` after the last. While the
    /// next chunk is not ready, the consumer does not wait idle if it may
    /// claim one more: it prepares the next unclaimed chunk itself (a later
    /// one, kept for its turn), so that one worker and the consumer keep two
    /// cores busy without a third thread to share them with.
    func take() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while done[taken] == nil, endIndex.map({ taken < $0 }) ?? true {
            if !stopped, endIndex == nil, nextIndex < taken + Self.ahead {
                var buffer = helperBuffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
                defer { helperBuffer = buffer }
                if let claimed = claimNext(&buffer, byWorker: false) { prepareClaimed(claimed, in: buffer, byWorker: false) }
            } else {
                condition.wait()
            }
        }
        guard let lines = done.removeValue(forKey: taken) else { return nil }
        taken += 1
        condition.broadcast()
        return lines
    }

    /// Stops the workers and waits until they have: afterwards nothing reads the file.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        done.removeAll()
        condition.unlock()
    }

    private func work() {
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer {
            buffer.deallocate()
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
        while true {
            // Claim the next chunk: read it and cut it after its last newline.
            // A second worker starts only while the consumer has nothing ready to take: when folding
            // is the slower side, one worker keeps up, and the others leave the folding thread its core.
            condition.lock()
            while !stopped, endIndex == nil, nextIndex >= taken + Self.ahead || (inProgress > 0 && !done.isEmpty) { condition.wait() }
            guard !stopped, endIndex == nil, let claimed = claimNext(&buffer, byWorker: true) else { condition.unlock(); return }
            prepareClaimed(claimed, in: buffer, byWorker: true)
            condition.unlock()
        }
    }

    /// With the lock held: claims the next chunk, read into `buffer`; nil at
    /// the end of the complete lines (``endIndex`` is then set).
    private func claimNext(_ buffer: inout UnsafeMutableRawBufferPointer, byWorker: Bool) -> (index: Int, offset: Int, length: Int)? {
        let index = nextIndex, offset = nextOffset
        let length = claim(&buffer, at: offset)
        if length == 0 {
            endIndex = index
            condition.broadcast()
            return nil
        }
        nextIndex += 1
        nextOffset += length
        if byWorker { inProgress += 1 }
        return (index, offset, length)
    }

    /// With the lock held: decodes a claimed chunk, the lock let go meanwhile,
    /// and hands it over; the lock is held again afterwards.
    private func prepareClaimed(_ claimed: (index: Int, offset: Int, length: Int), in buffer: UnsafeMutableRawBufferPointer, byWorker: Bool) {
        condition.unlock()
        let lines = prepare(UnsafeRawBufferPointer(rebasing: buffer[0..<claimed.length]), at: claimed.offset)
        condition.lock()
        done[claimed.index] = lines
        if byWorker { inProgress -= 1 }
        condition.broadcast()
    }

    /// Reads the bytes at `offset` into `buffer` (grown for a long line) and
    /// gives how many of them are whole lines; 0 at the end of the complete
    /// lines, after a failed read, or before a line too long to be one.
    private func claim(_ buffer: inout UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var filled = 0
        while true {
            while filled < buffer.count {
                let n = pread(fd, buffer.nonEmptyBase + filled, buffer.count - filled, off_t(offset + filled))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                filled += n
            }
            if let last = buffer[0..<filled].lastIndex(of: 0x0A) { return last + 1 }
            guard filled == buffer.count, buffer.count <= JournalLines.maxLineBytes else { return 0 }
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
            bigger.copyMemory(from: UnsafeRawBufferPointer(buffer))
            buffer.deallocate()
            buffer = bigger
        }
    }

    /// The fewest bytes a line that holds an event can have, with its newline:
    /// its `id` and `command` (36 each), `at` (24) and `prev` (64) alone take 160.
    private static var shortestEventLine: Int { 161 }

    private func prepare(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Chunk {
        var spans: [Span] = [], hashes: [SHA256Digest] = [], cutShort = false
        let estimate = bytes.count / 256
        spans.reserveCapacity(estimate)
        if hashing { hashes.reserveCapacity(estimate) }
        // Each event is decoded into its place in the chunk's buffer (room for as many as the
        // bytes could hold), not into a value copied there.
        let events = Events(capacity: bytes.count / Self.shortestEventLine + 1) { events in
            guard let base = bytes.baseAddress else { return 0 }   // no bytes, no lines
            var made = 0
            var start = 0
            var newer: NewerEventLine?
            // Lines are hashed two at a time (``SHA256/hash(_:_:extensions:)``): one waits here for the next.
            var unhashed: UnsafeRawBufferPointer?
            while start < bytes.count, let newline = memchr(base + start, 0x0A, bytes.count - start) {
                let end = base.distance(to: UnsafeRawPointer(newline))
                let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                let slot = events + made
                if !CanonicalLine.decode(line, into: slot) {
                    do {
                        slot.initialize(to: try EventLineCodec.decodeGeneral(line, newer: &newer))
                    } catch {
                        cutShort = true
                        break
                    }
                }
                made += 1
                spans.append(Span(offset: offset + start, length: end - start))
                if hashing {
                    if let first = unhashed {
                        let (a, b) = SHA256.hash(first, line)
                        hashes.append(a)
                        hashes.append(b)
                        unhashed = nil
                    } else {
                        unhashed = line
                    }
                }
                start = end + 1
            }
            if let last = unhashed { hashes.append(SHA256.hash(last)) }
            return made
        }
        return Chunk(events: events, spans: spans, hashes: hashes, cutShort: cutShort)
    }
}
