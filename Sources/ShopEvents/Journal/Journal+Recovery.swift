import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Opening: reading back and checking every line, and recovering a torn tail
// or a command a crash cut short (backed up, then cut).
extension Journal {
    // MARK: Reading back

    /// Reads and checks every line; with `recoverTail`, backs up and cuts a
    /// torn last line, and the lines of an incomplete command at the end.
    func load(recoverTail: Bool) throws(JournalError) {
        // From a good chain snapshot, only what follows it is read and checked.
        var chain = JournalChain(), start = 0
        if isReplicaForSync {
            // A replica keeps what a newer version wrote: its chain is checked, nothing of it folded.
            chain.newerLines = .checkChainOnly
        } else {
            switch ChainSnapshot.load(journal: path, fd: fd) {
            case let .usable(saved, size):
                (chain, start) = (saved, size)
                startedFromSnapshot = saved.head.seq
            case let .beyondTheEnd(head, size):
                // Writing on would put new events where the lost ones were: a person must look first.
                var info = stat()
                let have = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
                throw JournalError(.shorterThanKnownHead, "\(path) is shorter than its last known head: \(ChainSnapshot.path(forJournal: path)) records seq \(head.seq) (\(head)) ending at byte \(size), but the journal has \(have) bytes — it was cut back or replaced by an older copy; nothing was written. Restore the lost lines from a copy or a device's replica; a journal started anew on purpose needs that file moved away first")
            case .unusable:
                break
            }
        }
        guard lseek(fd, off_t(start), SEEK_SET) == off_t(start) else { throw JournalError.io("seek", path) }
        var lines = JournalLines(fd: fd, path: path, startOffset: start, firstLineNumber: chain.head.seq + 1)
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
            self.chain = chain
            self.size = end
            return
        }
        guard recoverTail else {
            throw JournalError.corrupt(line: cut.line, offset: cut.offset, cut.open != nil ? "the last command is incomplete"
                                       : lines.trailing?.emptyLines ?? 0 > 0 ? "the journal ends with empty lines" : "the last line has no newline")
        }
        let bytes = try readBytes(from: cut.offset, to: end)
        let backup = try backUp(bytes)
        guard ftruncate(fd, off_t(cut.offset)) == 0 else { throw JournalError.io("truncate", path) }
        guard DurableFile.sync(fd) else { throw JournalError.io("fsync", path) }
        recoveredTornTail = TornTailRecovery(line: cut.line, offset: cut.offset, length: bytes.count,
                                             commandLines: cut.open?.have ?? 0, command: cut.open?.command, backupPath: backup,
                                             emptyLines: cut.open == nil ? lines.trailing?.emptyLines ?? 0 : 0)
        // Fold again up to the cut: the state must not hold the events just removed.
        try load(recoverTail: false)
    }

    func readBytes(from start: Int, to end: Int) throws(JournalError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: end - start)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(start + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw JournalError.io("read", path) }
            done += n
        }
        return bytes
    }

    /// Copies torn bytes to `<journal>.torn-<UTC time>` and makes the copy durable.
    func backUp(_ bytes: [UInt8]) throws(JournalError) -> String {
        let stamp = Journal.fileStamp(Timestamp(Date()))
        var candidate = "\(path).torn-\(stamp)"
        var attempt = 1
        var backupFD = Posix.open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        while backupFD < 0, errno == EEXIST {
            attempt += 1
            candidate = "\(path).torn-\(stamp)-\(attempt)"
            backupFD = Posix.open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard backupFD >= 0 else { throw JournalError.io("create backup", candidate) }
        defer { _ = Posix.close(backupFD) }
        let written = bytes.withUnsafeBytes { write(backupFD, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw JournalError.io("write backup", candidate) }
        guard DurableFile.sync(backupFD) else { throw JournalError.io("fsync backup", candidate) }
        try DurableFile.syncDirectory(of: candidate)
        return candidate
    }

    func readEvents(at offset: Int, firstSeq: Int, count: Int) throws(JournalError) -> [RecordedEvent] {
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
