import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A household's journal file as a hub reads and appends it: its head and a pull's lines read
/// without the lock (from the two ends of the file, or from where the last pull ended), and, under
/// the writer's lock (`flock` on `<journal>.lock`, as every writer of the file takes it, so that a
/// `shop-replay` process writing the same journal is excluded), the lines folded so far, the
/// records of command ids, and an append that writes only if the head is still the one the lines
/// were decided on — written and `fsync`ed before it reports. The stdio hub (``SyncHub``) and the
/// hosted hub's file store both read and write a journal through it.
///
/// A damaged journal is refused naming its line and byte offset (`corrupt_line`), as opening it is.
/// Not thread-safe: use it from one queue.
///
/// ```swift
/// let file = HubJournalFile(path: "/srv/home.ndjson")
/// let (household, head) = try file.householdAndHead()
/// let page = try file.lines(after: 0, page: 100)
/// print(household as Any, head.seq, page.lines.count)
/// ```
public final class HubJournalFile {
    public let path: String
    let options: Journal.Options
    /// The writer's journal folds the household's state (the stdio hub decides on it); a hub that
    /// keeps the state itself (the hosted hub's ``HubCore``) opens it without: only its chain and ids.
    let keepsState: Bool
    /// The writer's journal, opened at the first write or locked read.
    private var journal: SharedJournal?
    /// Where the last whole command read ends, and the seq and hash of its last line: the next pull
    /// (or a read after an append) usually starts there.
    private var served: (seq: Int, end: Int, hash: SHA256Digest)?

    /// Without `keepsState`, the journal keeps no state: ``append(_:expected:checked:)`` checks the
    /// head, the command and event ids and the chain as before, and the stdio hub's decide is refused.
    public init(path: String, options: Journal.Options = .init(), keepsState: Bool = true) {
        self.path = JournalPath.absolute(path)
        self.options = options
        self.keepsState = keepsState
    }

    deinit { journal?.close() }

    /// Lines read after a seq: the hash of line `after` (or why there is none), each line's bytes
    /// (without the newline) and, where asked for, their hashes.
    public struct Lines: Sendable {
        public var after: HubRules.LineAfter
        public var lines: [[UInt8]]
        /// Each line's SHA-256, in order; empty unless the read was asked to hash.
        public var hashes: [SHA256Digest]
        /// The lines run to the end of the file as it was read (nothing was left for a later read).
        public var toEnd: Bool
    }

    /// What an append did.
    public enum Appended: Sendable, Equatable {
        /// Written and `fsync`ed (or there was nothing to write and the head was the one expected).
        case written
        /// The head is another one: nothing was written.
        case headMoved(JournalHead)
        /// A checked command id is recorded already: nothing was written.
        case recorded
        /// An event id of the lines is taken already in this journal: nothing was written.
        case eventIDTaken
    }

    // MARK: Without the lock

    /// The household (created by the first event: every other command needs it) and the last whole
    /// line's seq and hash — read from the two ends of the file, without the lock and without
    /// reading the history between. No file: no household, the empty head.
    public func householdAndHead() throws(JournalError) -> (HouseholdID?, JournalHead) {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            guard errno == ENOENT else { throw JournalError.io("open", path) }
            return (nil, .empty)
        }
        defer { _ = Posix.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.io("stat", path) }
        var first = JournalLines(fd: fd, path: path)
        guard let line = try first.next() else { return (nil, .empty) }
        var household: HouseholdID?
        if case let .event(recorded)? = try? EventLineCodec.decodeLine(line.bytes),
           case let .householdCreated(id, _, _, _) = recorded.event { household = id }
        return (household, try lastLineHead(fd, size: Int(info.st_size)))
    }

    /// The last whole line's seq and hash: read back from the end, a larger block each time, until it is all in.
    private func lastLineHead(_ fd: Int32, size: Int) throws(JournalError) -> JournalHead {
        var block = 1 << 16
        while true {
            let from = max(0, size - block)
            var tail = [UInt8](repeating: 0, count: size - from)
            guard tail.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, $0.count, off_t(from)) }) == tail.count else {
                throw JournalError.io("read", path)
            }
            guard let end = tail.lastIndex(of: 0x0A) else {
                if from == 0 { return .empty }
                block *= 4
                continue
            }
            guard let before = tail[..<end].lastIndex(of: 0x0A) ?? (from == 0 ? -1 : nil) else {
                block *= 4
                continue
            }
            let last = Array(tail[(before + 1)..<end])
            guard let envelope = last.withUnsafeBytes({ EventLineCodec.envelope($0) }) else {
                throw JournalError.corrupt(line: 0, offset: from + before + 1, "the hub's last line is not an event")
            }
            return JournalHead(seq: envelope.seq, hash: SHA256.hash(last))
        }
    }

    /// The lines after `after` as a pull's page of `limit` lines takes them (whole commands while it
    /// holds fewer than `limit` lines: ``HubRules/Page``), and the one line after them if the page is
    /// full — read without the lock, from where the last read ended if it ended at `after`. No line
    /// `after` (nor, for `after` 0, a file): no lines. `hashing`: each line's hash too.
    public func lines(after: Int, page limit: Int, hashing: Bool = false) throws(JournalError) -> Lines {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            guard errno == ENOENT else { throw JournalError.io("open", path) }
            return Lines(after: .noJournal, lines: [], hashes: [], toEnd: true)
        }
        defer { _ = Posix.close(fd) }
        guard let start = try start(after: after, fd: fd) else { return Lines(after: .missing, lines: [], hashes: [], toEnd: true) }
        guard lseek(fd, off_t(start.offset), SEEK_SET) == off_t(start.offset) else { throw JournalError.io("seek", path) }
        var lines = JournalLines(fd: fd, path: path, startOffset: start.offset, firstLineNumber: after + 1)
        var page = HubRules.Page(limit: limit)
        var found = Lines(after: start.after, lines: [], hashes: [], toEnd: true)
        var end = start.offset
        while let line = try lines.next() {
            let bytes = Array(line.bytes)
            found.lines.append(bytes)
            if hashing { found.hashes.append(SHA256.hash(bytes)) }
            guard page.add(bytes) else {
                found.toEnd = false
                break
            }
            if page.endsCommand { end = lines.consumedOffset }
        }
        // A command whose lines are not all there yet (a writer mid-write) is left for the next read.
        let whole = page.wholeLines
        if let last = whole.last { served = (after + whole.count, end, SHA256.hash(last)) }
        return found
    }

    /// Where the lines after `after` start, and the hash of line `after`; nil if the file has fewer lines.
    private func start(after: Int, fd: Int32) throws(JournalError) -> (offset: Int, after: HubRules.LineAfter)? {
        guard after > 0 else { return (0, .missing) }
        if let served, served.seq == after { return (served.end, .hash(served.hash)) }
        var lines = JournalLines(fd: fd, path: path)
        while let line = try lines.next() {
            guard line.number == after else { continue }
            return (lines.consumedOffset, .hash(SHA256.hash(line.bytes)))
        }
        return nil
    }

    // MARK: Under the writer's lock

    /// The writer's journal, opened (the whole file read and its chain checked) the first time.
    func writer() throws(JournalError) -> SharedJournal {
        if let journal { return journal }
        let opened = try SharedJournal.open(path: path, options: options, foldsState: keepsState)
        journal = opened
        return opened
    }

    /// Takes the writer's lock (waiting up to the options' `lockTimeout`, blocking this thread) and
    /// folds what other writers appended, their chain checked.
    public func lock() throws(JournalError) {
        try writer().lockAndCatchUp()
    }

    /// Lets the writer's lock go.
    public func unlock() {
        journal?.unlockAfterWriting()
    }

    /// With the lock held: the head of the lines checked so far.
    public var head: JournalHead { journal?.head ?? .empty }

    /// With the lock held: every line after `after` up to the head, each with its hash (all of them checked).
    public func lockedLines(after: Int) throws(JournalError) -> Lines {
        let journal = try writer()
        let head = journal.head
        guard after < head.seq else {
            return Lines(after: after == head.seq ? .hash(head.hash) : .missing, lines: [], hashes: [], toEnd: true)
        }
        let end = journal.journal.file.end
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw JournalError.io("open", path) }
        defer { _ = Posix.close(fd) }
        guard let start = try start(after: after, fd: fd) else { return Lines(after: .missing, lines: [], hashes: [], toEnd: true) }
        guard lseek(fd, off_t(start.offset), SEEK_SET) == off_t(start.offset) else { throw JournalError.io("seek", path) }
        var lines = JournalLines(fd: fd, path: path, startOffset: start.offset, firstLineNumber: after + 1)
        var found = Lines(after: start.after, lines: [], hashes: [], toEnd: true)
        while lines.consumedOffset < end, let line = try lines.next() {
            let bytes = Array(line.bytes)
            found.lines.append(bytes)
            found.hashes.append(SHA256.hash(bytes))
        }
        return found
    }

    /// With the lock held: the records of those of `ids` the journal holds (where its events are, and its type).
    public func records(of ids: [CommandID]) throws(JournalError) -> [CommandID: HubRules.CommandRecord] {
        try writer().journal.records(of: ids)
    }

    /// With the lock held: `lines` appended (written, then `fsync`ed) only if the head is still
    /// `expected`, none of `checked` is recorded and none of the lines' event ids is taken. If the
    /// write or the `fsync` fails, the file is cut back to where it was and the error thrown.
    public func append(_ lines: [HubRules.Line], expected: JournalHead, checked: [CommandID]) throws(JournalError) -> Appended {
        let journal = try writer()
        let appended = try journal.journal.append(lines, expected: expected, checked: checked)
        if appended == .written, !lines.isEmpty {
            served = (journal.head.seq, journal.journal.file.end, journal.head.hash)
        }
        return appended
    }

    /// ``SharedJournal/appendDecided(ids:_:)``: the stdio hub's push, decided on the journal's own state.
    func appendDecided(ids: [CommandID],
                       _ decide: (consuming HubRules.Fold, [CommandID: HubRules.CommandRecord], (EventID) -> Bool) -> HubRules.Decided)
    throws(JournalError) -> HubRules.Decided {
        precondition(keepsState, "\(path) was opened without its state: the stdio hub decides on it")
        return try writer().appendDecided(ids: ids, decide)
    }
}
