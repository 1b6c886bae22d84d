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
        self.path = path
        fd = try Self.openForReading(path)
        cursor = Cursor(lines: JournalLines(fd: fd, path: path), path: path, fd: fd, firstSeq: seq, verifyChain: verifyChain,
                        seq: 0, hash: .zero, lastAt: .earliest, lastLine: nil, offset: 0)
    }

    /// Goes on reading where an earlier reader stopped.
    public init(path: String, resumingAt position: JournalPosition, verifyChain: Bool = true) throws(JournalError) {
        self.path = path
        let fd = try Self.openForReading(path)
        guard lseek(fd, off_t(position.offset), SEEK_SET) == off_t(position.offset) else {
            Posix.close(fd)   // not fully initialised yet: deinit will not run
            throw JournalError.io("seek", path)
        }
        self.fd = fd
        cursor = Cursor(lines: JournalLines(fd: fd, path: path, startOffset: position.offset, firstLineNumber: position.seq + 1),
                        path: path, fd: fd, firstSeq: position.seq + 1, verifyChain: verifyChain, seq: position.seq,
                        hash: position.seq == 0 ? .zero : nil, lastAt: position.lastAt ?? .earliest,
                        lastLine: position.seq == 0 ? nil : (position.lastLineOffset, position.offset - 1 - position.lastLineOffset),
                        offset: position.offset)
        if verifyChain { _ = try cursor.lastLineHash() }
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

    /// The next event, or `nil` after the last complete line.
    public func next() throws(JournalError) -> RecordedEvent? { try cursor.next() }

    /// Where the reader stands: after the last event it read.
    public var position: JournalPosition { cursor.position }

    /// The audit head of what was read (hashes the last line if the chain was not verified).
    public func head() throws(JournalError) -> JournalHead { JournalHead(seq: cursor.seq, hash: try cursor.lastLineHash()) }

    /// Bytes after the last complete line: a line being written, or a torn tail.
    public var incompleteTail: Int { cursor.lines.trailing?.bytes.count ?? 0 }

    /// Every event of the journal at `path` from `seq` on.
    public static func readAll(path: String, from seq: Int = 1) throws(JournalError) -> [RecordedEvent] {
        let reader = try JournalReader(path: path, from: seq)
        var events: [RecordedEvent] = []
        while let recorded = try reader.next() { events.append(recorded) }
        return events
    }

    private struct Cursor: ~Copyable {
        var lines: JournalLines
        let path: String
        let fd: Int32
        let firstSeq: Int
        let verifyChain: Bool
        var seq: Int
        var hash: SHA256Digest?
        var lastAt: Timestamp
        var lastLine: (offset: Int, length: Int)?
        var offset: Int

        mutating func next() throws(JournalError) -> RecordedEvent? {
            while let line = try lines.next() {
                let recorded: RecordedEvent
                do { recorded = try EventLineCodec.decode(line.bytes) } catch {
                    throw JournalError.corrupt(line: line.number, offset: line.offset + error.offset, "\(error.code): \(error.detail)")
                }
                guard recorded.seq == seq + 1 else {
                    throw JournalError.corrupt(line: line.number, offset: line.offset, "seq is \(recorded.seq) where \(seq + 1) was expected")
                }
                if verifyChain {
                    guard recorded.prev == hash else {
                        throw JournalError.corrupt(line: line.number, offset: line.offset, "prev is not the SHA-256 of line \(line.number - 1)")
                    }
                    hash = SHA256.hash(line.bytes)
                } else {
                    hash = nil
                }
                guard recorded.at >= lastAt else {
                    throw JournalError.corrupt(line: line.number, offset: line.offset, "at \(recorded.at) is earlier than the line before")
                }
                seq = recorded.seq
                lastAt = recorded.at
                lastLine = (line.offset, line.bytes.count)
                offset = line.offset + line.bytes.count + 1
                if recorded.seq >= firstSeq { return recorded }
            }
            return nil
        }

        var position: JournalPosition {
            JournalPosition(seq: seq, offset: offset, lastLineOffset: lastLine?.offset ?? 0, lastAt: seq == 0 ? nil : lastAt)
        }

        mutating func lastLineHash() throws(JournalError) -> SHA256Digest {
            if let hash { return hash }
            guard let lastLine else { return .zero }
            var bytes = [UInt8](repeating: 0, count: lastLine.length)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, lastLine.length, off_t(lastLine.offset)) }
            guard n == lastLine.length else { throw JournalError.io("read", path) }
            let digest = SHA256.hash(bytes)
            hash = digest
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
