import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening a journal: reading back and checking every line, and recovering
/// a torn tail or a command a crash cut short (backed up, then cut). Shared by
/// ``Journal`` and ``ReplicaJournal``, which differ only in what they fold.
struct ReadBack {
    /// The chain up to the file's last whole command; the file's ``AppendFile/end`` is set after it.
    var chain: JournalChain
    /// What was cut, if anything.
    var recovered: Journal.TornTailRecovery?
    /// The seq of the chain snapshot reading started from, if one was good.
    var startedFromSnapshot: Int?

    /// Reads and checks every line of `file`; with `recoverTail`, backs up and cuts a torn last
    /// line, and the lines of an incomplete command at the end (else those refuse, with line and
    /// offset). A replica's chain is checked, nothing of it folded, and it has no chain snapshot.
    /// Without `foldsState`, the chain keeps no state (``JournalChain/stopFoldingState()``).
    static func load(_ file: AppendFile, replica: Bool, recoverTail: Bool, foldsState: Bool = true) throws(JournalError) -> ReadBack {
        let path = file.path
        // From a good chain snapshot, only what follows it is read and checked.
        var chain = JournalChain(), start = 0
        var startedFromSnapshot: Int?
        if replica {
            // A replica keeps what a newer version wrote: its chain is checked, nothing of it folded.
            chain.newerLines = .checkChainOnly
        } else {
            switch ChainSnapshot.load(journal: path, fd: file.fd) {
            case let .usable(saved, size):
                (chain, start) = (saved, size)
                startedFromSnapshot = saved.head.seq
            case let .beyondTheEnd(head, size):
                // Writing on would put new events where the lost ones were: a person must look first.
                let have = (try? file.currentSize()) ?? 0
                throw JournalError(.shorterThanKnownHead, "\(path) is shorter than its last known head: \(ChainSnapshot.path(forJournal: path)) records seq \(head.seq) (\(head)) ending at byte \(size), but the journal has \(have) bytes — it was cut back or replaced by an older copy; nothing was written. Restore the lost lines from a copy or a device's replica; a journal started anew on purpose needs that file moved away first")
            case .unusable:
                break
            }
        }
        if !foldsState { chain.stopFoldingState() }
        guard lseek(file.fd, off_t(start), SEEK_SET) == off_t(start) else { throw JournalError.io("seek", path) }
        var lines = JournalLines(fd: file.fd, path: path, startOffset: start, firstLineNumber: chain.head.seq + 1)
        try chain.accept(all: &lines)
        let end = lines.consumedOffset + (lines.trailing?.bytes.count ?? 0)
        if let tail = lines.trailing, let problem = JournalChain.notATornWrite(tail.bytes) {
            throw JournalError.corrupt(line: chain.head.seq + 1, offset: tail.offset, problem)
        }
        // Where the journal must end: before an incomplete command, else before a torn line or empty lines.
        let cut: (line: Int, offset: Int, open: OpenCommand?)?
        if let open = chain.openCommand {
            cut = (open.line, open.offset, open)
        } else if let tail = lines.trailing {
            cut = (chain.head.seq + 1, tail.offset, nil)
        } else {
            cut = nil
        }
        guard let cut else {
            file.end = end
            return ReadBack(chain: chain, startedFromSnapshot: startedFromSnapshot)
        }
        guard recoverTail else {
            throw JournalError.corrupt(line: cut.line, offset: cut.offset, cut.open != nil ? "the last command is incomplete"
                                       : lines.trailing?.emptyLines ?? 0 > 0 ? "the journal ends with empty lines" : "the last line has no newline")
        }
        let (length, backup) = try file.cutTail(from: cut.offset, through: end)
        // Fold again up to the cut: the state must not hold the events just removed.
        var again = try load(file, replica: replica, recoverTail: false, foldsState: foldsState)
        again.recovered = Journal.TornTailRecovery(line: cut.line, offset: cut.offset, length: length,
                                                   commandLines: cut.open?.have ?? 0, command: cut.open?.command, backupPath: backup,
                                                   emptyLines: cut.open == nil ? lines.trailing?.emptyLines ?? 0 : 0)
        return again
    }

    /// The `count` events from the line at `offset` (whose seq is `firstSeq`), read from the file at `path`.
    static func events(in path: String, at offset: Int, firstSeq: Int, count: Int) throws(JournalError) -> [RecordedEvent] {
        let readFD = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard readFD >= 0 else { throw JournalError.io("open", path) }
        defer { _ = Posix.close(readFD) }
        guard lseek(readFD, off_t(offset), SEEK_SET) == off_t(offset) else { throw JournalError.io("seek", path) }
        var lines = JournalLines(fd: readFD, path: path, startOffset: offset, firstLineNumber: firstSeq)
        var events: [RecordedEvent] = []
        while events.count < count, let line = try lines.next() {
            do { events.append(try EventLineCodec.decode(line.bytes)) } catch {
                throw JournalError.corrupt(line: line.number, offset: line.offset + error.offset, error.detail)
            }
        }
        return events
    }
}
