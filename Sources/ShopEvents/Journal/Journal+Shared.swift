import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Shared mode: a writer that holds the lock only while it writes, and
// catches up with what other processes appended before each write.
extension Journal {
    // MARK: Shared mode: the lock only while writing

    /// Opens for a writer that shares the journal with other processes: the
    /// caller holds `lockFD` (the writer's lock) on entry; the journal is
    /// loaded (a torn tail recovered), then the lock is released. Each write
    /// takes it again (``lockForWriting()``), folds what others appended
    /// (``catchUp()``), writes, and releases it.
    static func openShared(path: String, options: Options, lockFD: Int32) throws(JournalError) -> Journal {
        let journal = try open(path: path, options: options, existing: nil, lockFD: lockFD)
        journal.file.shareLock()
        return journal
    }

    /// Opens the journal for a writer that shares it with other processes
    /// while it stays open — `shop-replay apply` reading commands as someone
    /// types them, next to an app's ``ShopStore``. The lock is held only while
    /// writing: each `execute` takes it (waiting up to `lockTimeout` seconds,
    /// blocking the calling thread — use ``ShopStore`` from async code), folds
    /// what others appended, writes, `fsync`s and lets it go.
    ///
    /// ```swift
    /// let journal = try Journal.openShared(path: "shop.ndjson", options: .init(actor: "ana"))
    /// try journal.execute(.createList(list: ListID(), name: "Weekend", priority: nil))   // others may write meanwhile
    /// ```
    public static func openShared(path: String, options: Options = Options()) throws(JournalError) -> Journal {
        let path = JournalPath.absolute(path)
        let lockFD = try WriterLock.acquire(journalPath: path, timeout: options.lockTimeout)
        return try openShared(path: path, options: options, lockFD: lockFD)
    }

    /// In shared mode, folds what other processes appended (taking the lock
    /// for a moment); in the usual mode there is nothing to fold.
    public func refresh() throws(JournalError) {
        guard !file.holdsLock else { return }
        try file.lockBlocking(timeout: options.lockTimeout)
        defer { file.unlock() }
        try catchUp()
    }

    /// Tries once to take the writer's lock (shared mode); `false` if another writer has it.
    func lockForWriting() throws(JournalError) -> Bool { try file.lockForWriting() }

    /// Releases the writer's lock (shared mode).
    func unlockAfterWriting() { file.unlock() }

    /// Folds the lines other writers appended since this journal last read or
    /// wrote, checking their chain; with the lock held. A torn tail or an
    /// incomplete command that a crashed writer left is recovered as on opening.
    /// Damage closes the journal (`corrupt_line`): nothing more is written to it.
    func catchUp() throws(JournalError) {
        guard file.isOpen else { throw file.closedError() }
        if try file.followThePath() {
            // Another file is there now (the empty one discarded, or the journal renamed aside): read it from the start.
            return try load(recoverTail: true)
        }
        let fileSize = try file.currentSize(), size = file.end
        guard fileSize != size else { return }
        do throws(JournalError) {
            guard fileSize > size else {
                throw JournalError.corrupt(line: chain.head.seq, offset: fileSize, "the journal is shorter (\(fileSize) bytes) than the \(size) bytes already read: someone cut it")
            }
            guard lseek(file.fd, off_t(size), SEEK_SET) == off_t(size) else { throw JournalError.io("seek", path) }
            var lines = JournalLines(fd: file.fd, path: path, startOffset: size, firstLineNumber: chain.head.seq + 1)
            try chain.accept(all: &lines)
            if lines.trailing != nil || chain.openCommand != nil {
                // A writer crashed mid-write: recover exactly as opening does.
                try load(recoverTail: true)
                return
            }
            file.end = lines.consumedOffset
        } catch {
            close()
            throw error
        }
    }
}
