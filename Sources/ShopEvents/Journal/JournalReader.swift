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
    private let lines: JournalLines
    private let firstSeq: Int
    /// The head of the lines read so far.
    public private(set) var head = JournalHead.empty
    private var lastAt = Timestamp.earliest

    /// Opens `path` for reading; events before `seq` are checked but not returned.
    public init(path: String, from seq: Int = 1) throws(JournalError) {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw JournalError(.notFound, "there is no journal at \(path)") }
            throw JournalError.io("open", path)
        }
        self.path = path
        self.fd = fd
        self.firstSeq = seq
        lines = JournalLines(fd: fd, path: path)
    }

    deinit { Posix.close(fd) }

    /// The next event, or `nil` after the last complete line.
    public func next() throws(JournalError) -> RecordedEvent? {
        while let line = try lines.next() {
            let recorded: RecordedEvent
            do { recorded = try EventLineCodec.decode(line.bytes) } catch {
                throw JournalError.corrupt(line: line.number, offset: line.offset + error.offset, "\(error.code): \(error.detail)")
            }
            guard recorded.seq == head.seq + 1 else {
                throw JournalError.corrupt(line: line.number, offset: line.offset, "seq is \(recorded.seq) where \(head.seq + 1) was expected")
            }
            guard recorded.prev == head.hash else {
                throw JournalError.corrupt(line: line.number, offset: line.offset, "prev is not the SHA-256 of line \(line.number - 1)")
            }
            guard recorded.at >= lastAt else {
                throw JournalError.corrupt(line: line.number, offset: line.offset, "at \(recorded.at) is earlier than the line before")
            }
            head = JournalHead(seq: recorded.seq, hash: SHA256.hash(line.bytes))
            lastAt = recorded.at
            if recorded.seq >= firstSeq { return recorded }
        }
        return nil
    }

    /// Bytes after the last complete line: a line being written, or a torn tail.
    public var incompleteTail: Int { lines.trailing?.bytes.count ?? 0 }

    /// Every event of the journal at `path` from `seq` on.
    public static func readAll(path: String, from seq: Int = 1) throws(JournalError) -> [RecordedEvent] {
        let reader = try JournalReader(path: path, from: seq)
        var events: [RecordedEvent] = []
        while let recorded = try reader.next() { events.append(recorded) }
        return events
    }
}
