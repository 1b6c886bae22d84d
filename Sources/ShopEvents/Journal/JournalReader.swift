import Foundation

/// Reads a journal without taking the writer's lock, while a writer may be
/// appending: it sees every complete line and leaves a partial last line
/// alone. Each line is checked as it is read — valid event, contiguous `seq`,
/// `prev` the SHA-256 of the line before — so a damaged journal stops the
/// reader at the first bad line, with its number and byte offset.
///
/// ```swift
/// let reader = try JournalReader(path: "shop.ndjson", from: 100)
/// while let recorded = try reader.next() {
///     print(recorded.seq, recorded.event.typeName)
/// }
/// print(reader.head)     // the audit head of what was read
/// ```
public final class JournalReader {
    public let path: String
    private let fd: Int32
    /// Everything that changes while reading, in one value: one access per
    /// event instead of one per field.
    private var cursor: Cursor

    /// Opens `path` for reading; events before `seq` are checked but not returned.
    /// Without `verifyChain`, `prev` is not checked and lines are not hashed
    /// (`seq` and `at` still are): the fast path for views.
    public init(path: String, from seq: Int = 1, verifyChain: Bool = true) throws(JournalError) {
        let path = JournalPath.absolute(path)
        self.path = path
        fd = try Self.openForReading(path)
        let mark = Mark(seq: 0, hash: .zero, lastAt: .earliest, lastLine: nil, offset: 0)
        cursor = Cursor(lines: JournalLines(fd: fd, path: path), path: path, fd: fd, firstSeq: seq, verifyChain: verifyChain,
                        read: mark, returned: mark)
    }

    /// Goes on reading where an earlier reader stopped.
    public init(path: String, resumingAt position: JournalPosition, verifyChain: Bool = true) throws(JournalError) {
        let path = JournalPath.absolute(path)
        self.path = path
        let fd = try Self.openForReading(path)
        guard lseek(fd, off_t(position.offset), SEEK_SET) == off_t(position.offset) else {
            Posix.close(fd)   // not fully initialised yet: deinit will not run
            throw JournalError.io("seek", path)
        }
        self.fd = fd
        let mark = Mark(seq: position.seq, hash: position.seq == 0 ? .zero : nil, lastAt: position.lastAt ?? .earliest,
                        lastLine: position.seq == 0 ? nil : (position.lastLineOffset, position.offset - 1 - position.lastLineOffset),
                        offset: position.offset)
        cursor = Cursor(lines: JournalLines(fd: fd, path: path, startOffset: position.offset, firstLineNumber: position.seq + 1),
                        path: path, fd: fd, firstSeq: position.seq + 1, verifyChain: verifyChain, read: mark, returned: mark)
        if verifyChain {
            let hash = try cursor.lastLineHash()
            cursor.read.hash = hash
        }
    }

    private static func openForReading(_ path: String) throws(JournalError) -> Int32 {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw JournalError(.notFound, "there is no journal at \(path)") }
            throw JournalError.io("open", path)
        }
        return fd
    }

    deinit { Posix.close(fd) }

    /// The next event, or `nil` after the last complete command. The events
    /// of a command are returned only when all of its lines are there (its
    /// `commandEvents`); reading stops before a line written by a newer
    /// version of ShopEvents (``newerLine``).
    public func next() throws(JournalError) -> RecordedEvent? { try cursor.next() }

    /// Where the reader stands: after the last event it returned.
    public var position: JournalPosition { cursor.position }

    /// The audit head of what was returned (hashes the last line if the chain was not verified).
    public func head() throws(JournalError) -> JournalHead { JournalHead(seq: cursor.returned.seq, hash: try cursor.lastLineHash()) }

    /// Bytes after the last complete line: a line being written, or a torn tail.
    public var incompleteTail: Int { cursor.lines.trailing?.bytes.count ?? 0 }

    /// The bytes after the last complete line, if any: a line being written, or a torn tail.
    public var trailingBytes: [UInt8]? { cursor.lines.trailing?.bytes }

    /// Why bytes after the last newline cannot be a line being written or a
    /// torn write (`nil` when they can): every writer writes a line from its `{`.
    public static func whyNotATornWrite(_ bytes: [UInt8]) -> String? { JournalChain.notATornWrite(bytes) }

    /// The line where reading stopped because a newer version of ShopEvents
    /// wrote it: the events before it are all there is to read with this version.
    public var newerLine: NewerLineFound? { cursor.newer }

    /// A command at the end whose lines are not all there: being written right
    /// now, or cut short by a crash (opening for writing cuts it). Its events were not returned.
    public var heldBackCommand: (line: Int, offset: Int, lines: Int, of: Int)? { cursor.heldBack }

    /// Bytes of the file after where the reader stands.
    package var bytesLeft: Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return 0 }
        return max(0, Int(info.st_size) - cursor.position.offset)
    }

    /// Reads every event to the end and gives each to `apply`, in order, on
    /// this thread. With `prefetching`, other threads read, hash and decode
    /// the lines ahead (``ParallelLines``, a chunk of whole lines each) while
    /// this one checks them in order — `seq`, `prev`, times, commands — and
    /// applies, and prepares a chunk itself rather than wait for one: the
    /// same events, in the same order, and the same error after the same
    /// events. Anything but a valid event (damage, a line a newer
    /// version wrote, a command not all there, bytes after the last newline)
    /// ends the parallel reading; the reader then goes on from the line it
    /// stood at, one line at a time, and finds and reports it as ``next()``
    /// does. Afterwards the reader stands at the end, as after calling
    /// ``next()`` until `nil`. Returns how many events were applied.
    package func readToEnd(prefetching: Bool, chunkSize: Int = ParallelLines.defaultChunkSize, workers: Int = ParallelLines.defaultWorkers,
                           _ apply: (RecordedEvent) -> Void) throws(JournalError) -> Int {
        var count = 0
        if prefetching, bytesLeft >= chunkSize / 4 {
            // First whatever a command read ahead holds, so that the cursor stands between lines.
            while cursor.hasPending, let recorded = try next() {
                apply(recorded)
                count += 1
            }
            if cursor.standsBetweenLines {
                let lines = ParallelLines(fd: fd, from: cursor.read.offset, hashing: cursor.verifyChain, chunkSize: chunkSize, workers: workers)
                count += cursor.fastForward(through: lines, apply)
                lines.stop()
                try cursor.resumeOneLineAtATime()
            }
        }
        while let recorded = try next() {
            apply(recorded)
            count += 1
        }
        return count
    }

    /// Every event of the journal at `path` from `seq` on.
    public static func readAll(path: String, from seq: Int = 1) throws(JournalError) -> [RecordedEvent] {
        let reader = try JournalReader(path: path, from: seq)
        var events: [RecordedEvent] = []
        while let recorded = try reader.next() { events.append(recorded) }
        return events
    }

    /// Where reading stands after one line.
    fileprivate struct Mark {
        var seq: Int
        /// `nil` when not known (the chain is not verified).
        var hash: SHA256Digest?
        var lastAt: Timestamp
        var lastLine: (offset: Int, length: Int)?
        var offset: Int
    }

    private struct Cursor: ~Copyable {
        var lines: JournalLines
        let path: String
        let fd: Int32
        let firstSeq: Int
        let verifyChain: Bool
        /// After the last line read (and checked).
        var read: Mark
        /// After the last event returned.
        var returned: Mark
        /// Events of a complete command read ahead, with the mark after each.
        var pending: [(RecordedEvent, Mark)] = []
        var pendingIndex = 0
        var newer: NewerLineFound?
        var heldBack: (line: Int, offset: Int, lines: Int, of: Int)?

        mutating func next() throws(JournalError) -> RecordedEvent? {
            while true {
                while pendingIndex < pending.count {
                    let (recorded, mark) = pending[pendingIndex]
                    pendingIndex += 1
                    returned = mark
                    if recorded.seq >= firstSeq { return recorded }
                }
                pending.removeAll(keepingCapacity: true)
                pendingIndex = 0
                guard newer == nil, heldBack == nil, let line = try lines.next() else { return nil }
                let lineNumber = line.number, lineOffset = line.offset
                guard let recorded = try readLine(line) else { return nil }
                guard let declared = recorded.commandEvents else {
                    returned = read
                    if recorded.seq >= firstSeq { return recorded }
                    continue
                }
                // A command of several events: read all of its lines before returning any.
                pending.append((recorded, read))
                while pending.count < declared {
                    guard let following = try lines.next() else {
                        heldBack = (lineNumber, lineOffset, pending.count, declared)
                        return stopBeforeGroup()
                    }
                    guard let event = try readLine(following) else { return stopBeforeGroup() }
                    guard event.command == recorded.command else {
                        throw JournalError.corrupt(line: lineNumber, offset: lineOffset, "command \(recorded.command) declares \(declared) events (commandEvents) but only \(pending.count) follow before line \(following.number) starts another command: lines were removed")
                    }
                    pending.append((event, read))
                }
            }
        }

        /// Gives up a command read ahead: reading ends before its first line.
        private mutating func stopBeforeGroup() -> RecordedEvent? {
            pending.removeAll()
            pendingIndex = 0
            read = returned
            return nil
        }

        /// Decodes and checks one line; `nil` (and ``newer`` set) for a line a newer version wrote.
        private mutating func readLine(_ line: JournalLines.Line) throws(JournalError) -> RecordedEvent? {
            let decoded: JournalLine
            do { decoded = try EventLineCodec.decodeLine(line.bytes) } catch {
                throw JournalError.corrupt(line: line.number, offset: line.offset + error.offset, "\(error.code): \(error.detail)")
            }
            let seq: Int, prev: SHA256Digest, at: Timestamp
            switch decoded {
            case let .event(recorded): (seq, prev, at) = (recorded.seq, recorded.prev, recorded.at)
            case let .newer(envelope): (seq, prev, at) = (envelope.seq, envelope.prev, envelope.at)
            }
            guard seq == read.seq + 1 else {
                throw JournalError.corrupt(line: line.number, offset: line.offset, "seq is \(seq) where \(read.seq + 1) was expected (lines missing, repeated or out of order)")
            }
            var hash: SHA256Digest?
            if verifyChain {
                guard prev == read.hash else {
                    let error = JournalError.corrupt(line: line.number, offset: line.offset, "prev is not the SHA-256 of line \(line.number - 1): line \(line.number - 1) or this line's prev was changed")
                    throw JournalChain.blame(error, line: line, previousOffset: read.lastLine?.offset ?? 0, expectedPrev: read.hash ?? .zero, lines: &lines)
                }
                hash = SHA256.hash(line.bytes)
            }
            guard at >= read.lastAt else {
                throw JournalError.corrupt(line: line.number, offset: line.offset, "at \(at) is earlier than the line before (\(read.lastAt))")
            }
            if case let .newer(envelope) = decoded {
                // A line whose type or version was changed would pass for a newer one: the next line's prev tells.
                let hash = SHA256.hash(line.bytes)
                let number = line.number, offset = line.offset
                if let next = try lines.next(), let following = EventLineCodec.envelope(next.bytes), following.prev != hash {
                    throw JournalError.corrupt(line: number, offset: offset, "\(envelope.type) v\(envelope.version) is no event this version knows, and line \(number + 1) does not record this line's SHA-256 as its prev: the line was changed")
                }
                newer = NewerLineFound(line: number, offset: offset, envelope: envelope,
                                       headBefore: JournalHead(seq: returned.seq, hash: (try? lastLineHash()) ?? .zero))
                return nil
            }
            read = Mark(seq: seq, hash: hash, lastAt: at, lastLine: (line.offset, line.bytes.count), offset: line.offset + line.bytes.count + 1)
            guard case let .event(recorded) = decoded else { return nil }
            return recorded
        }

        var hasPending: Bool { pendingIndex < pending.count }

        /// Nothing read ahead or held: the next line to read starts where the last one read ended.
        var standsBetweenLines: Bool {
            !hasPending && newer == nil && heldBack == nil && lines.trailing == nil && read.offset == returned.offset
                && lines.consumedOffset == read.offset
        }

        /// Checks and applies the lines `source` prepared, in order, while each
        /// is a valid event that follows the one before; stops before the first
        /// that is not (or before the first line of a command not all there),
        /// standing after the last event applied. The checks are those of
        /// ``readLine(_:)`` and ``next()``, for the case where they pass.
        mutating func fastForward(through source: ParallelLines, _ apply: (RecordedEvent) -> Void) -> Int {
            var count = 0
            var group: [(RecordedEvent, Mark)] = []
            var declared = 0
            reading: while let chunk = source.take() {
                for i in chunk.spans.indices {
                    // The event looked at where it lies in the chunk, and moved out to be applied: never copied.
                    let event = chunk.events[i]
                    guard event.pointee.seq == read.seq + 1, !verifyChain || event.pointee.prev == read.hash,
                          event.pointee.at >= read.lastAt else { break reading }
                    if let first = group.first, event.pointee.command != first.0.command { break reading }
                    let span = chunk.spans[i]
                    let mark = Mark(seq: event.pointee.seq, hash: verifyChain ? chunk.hashes[i] : nil, lastAt: event.pointee.at,
                                    lastLine: (span.offset, span.length), offset: span.offset + span.length + 1)
                    if group.isEmpty, let events = event.pointee.commandEvents {
                        declared = events
                    } else if group.isEmpty {
                        read = mark
                        returned = mark
                        let applying = chunk.events.take(i)
                        if applying.seq >= firstSeq { apply(applying); count += 1 }
                        continue
                    }
                    read = mark
                    group.append((chunk.events.take(i), mark))
                    if group.count == declared {
                        // Read where they lie (a loop over the pairs copied each event out).
                        for index in group.indices {
                            returned = group[index].1
                            if group[index].0.seq >= firstSeq { apply(group[index].0); count += 1 }
                        }
                        group.removeAll(keepingCapacity: true)
                    }
                }
                if chunk.cutShort { break reading }
            }
            read = returned   // a command not all there is read again, one line at a time
            return count
        }

        /// Reads on from where the cursor stands one line at a time (after ``fastForward(through:_:)``), with the line buffer it had.
        mutating func resumeOneLineAtATime() throws(JournalError) {
            guard lseek(fd, off_t(read.offset), SEEK_SET) == off_t(read.offset) else { throw JournalError.io("seek", path) }
            lines.restart(at: read.offset, firstLineNumber: read.seq + 1)
        }

        var position: JournalPosition {
            JournalPosition(seq: returned.seq, offset: returned.offset, lastLineOffset: returned.lastLine?.offset ?? 0,
                            lastAt: returned.seq == 0 ? nil : returned.lastAt)
        }

        mutating func lastLineHash() throws(JournalError) -> SHA256Digest {
            if let hash = returned.hash { return hash }
            guard let lastLine = returned.lastLine else { return .zero }
            var bytes = [UInt8](repeating: 0, count: lastLine.length)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, lastLine.length, off_t(lastLine.offset)) }
            guard n == lastLine.length else { throw JournalError.io("read", path) }
            let digest = SHA256.hash(bytes)
            returned.hash = digest
            return digest
        }
    }
}

/// A place in a journal between two lines: after event `seq`, at byte `offset`.
/// Keep it to resume reading later without reading the start again.
///
/// ```swift
/// let reader = try JournalReader(path: path)
/// while let _ = try reader.next() {}
/// let later = try JournalReader(path: path, resumingAt: reader.position)   // only new events
/// ```
public struct JournalPosition: Hashable, Sendable {
    /// The last event read; 0 before the first.
    public var seq: Int
    /// Byte offset just after that event's line.
    public var offset: Int
    /// Where that line starts.
    public var lastLineOffset: Int
    /// Its `at`.
    public var lastAt: Timestamp?

    public init(seq: Int, offset: Int, lastLineOffset: Int, lastAt: Timestamp?) {
        self.seq = seq; self.offset = offset; self.lastLineOffset = lastLineOffset; self.lastAt = lastAt
    }

    /// Before the first line.
    public static let start = JournalPosition(seq: 0, offset: 0, lastLineOffset: 0, lastAt: nil)
}
