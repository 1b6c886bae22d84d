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
        journal.holdsLock = false
        WriterLock.unlock(journal.lockFD)
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
        guard !holdsLock else { return }
        try lockBlocking()
        defer { unlockAfterWriting() }
        try catchUp()
    }

    /// Takes the lock in shared mode, waiting at most `lockTimeout` seconds.
    func lockBlocking() throws(JournalError) {
        let deadline = Date().addingTimeInterval(options.lockTimeout)
        var pause: UInt32 = 1_000
        while try !lockForWriting() {
            guard Date() < deadline else {
                throw JournalError(.locked, "\(path) is being written by process \(WriterLock.holder(lockFD)) (lock \(path).lock); waited \(options.lockTimeout) s — try again when it is done")
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// Tries once to take the writer's lock (shared mode); `false` if another writer has it.
    func lockForWriting() throws(JournalError) -> Bool {
        guard lockFD >= 0 else { throw JournalError(.closed, "the journal \(path) is closed; open it again") }
        guard !holdsLock else { return true }
        guard try WriterLock.tryLock(lockFD, journalPath: path) else { return false }
        holdsLock = true
        return true
    }

    /// Releases the writer's lock (shared mode).
    func unlockAfterWriting() {
        guard holdsLock, lockFD >= 0 else { return }
        WriterLock.unlock(lockFD)
        holdsLock = false
    }

    /// Folds the lines other writers appended since this journal last read or
    /// wrote, checking their chain; with the lock held. A torn tail or an
    /// incomplete command that a crashed writer left is recovered as on opening.
    /// Damage closes the journal (`corrupt_line`): nothing more is written to it.
    func catchUp() throws(JournalError) {
        guard fd >= 0 else { throw JournalError(.closed, "the journal \(path) is closed; open it again") }
        try followThePath()
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.io("stat", path) }
        let fileSize = Int(info.st_size)
        guard fileSize != size else { return }
        do throws(JournalError) {
            guard fileSize > size else {
                throw JournalError.corrupt(line: chain.head.seq, offset: fileSize, "the journal is shorter (\(fileSize) bytes) than the \(size) bytes already read: someone cut it")
            }
            guard lseek(fd, off_t(size), SEEK_SET) == off_t(size) else { throw JournalError.io("seek", path) }
            var lines = JournalLines(fd: fd, path: path, startOffset: size, firstLineNumber: chain.head.seq + 1)
            try chain.accept(all: &lines)
            if lines.trailing != nil || chain.openCommand != nil {
                // A writer crashed mid-write: recover exactly as opening does.
                chain = JournalChain()
                try load(recoverTail: true)
                return
            }
            size = lines.consumedOffset
        } catch {
            close()
            throw error
        }
    }

    /// With the lock held: if `path` no longer names the file this journal has
    /// open — an empty journal discarded by the process that created it, or a
    /// journal renamed aside — open (or create) what is there now and read it
    /// from the start, so that nothing is ever written to a file no one can find.
    func followThePath() throws(JournalError) {
        var mine = stat(), there = stat()
        guard fstat(fd, &mine) == 0 else { throw JournalError.io("stat", path) }
        if stat(path, &there) == 0, there.st_dev == mine.st_dev, there.st_ino == mine.st_ino { return }
        var created = true
        var newFD = Posix.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if newFD < 0, errno == EEXIST {
            created = false
            newFD = Posix.open(path, O_RDWR | O_CLOEXEC)
        }
        guard newFD >= 0 else { throw JournalError.io("open", path) }
        _ = Posix.close(fd)
        fd = newFD
        createdFile = created
        if created { try DurableFile.syncDirectory(of: path) }
        chain = JournalChain()
        size = 0
        try load(recoverTail: true)
    }

    /// Renames the file at `path` to `<path>.old-<UTC time>` (never over another file),
    /// and its snapshots (`.chain`, `.snapshot`) with it: they describe the old
    /// journal, and the new one must not be taken for a cut-back copy of it.
    static func moveAside(_ path: String, stamp: Timestamp) throws(JournalError) -> String {
        let base = "\(path).old-\(fileStamp(stamp))"
        var candidate = base
        var attempt = 1
        func taken(_ name: String) -> Bool { ["", ".chain", ".snapshot"].contains { access(name + $0, F_OK) == 0 } }
        while taken(candidate) {
            attempt += 1
            candidate = "\(base)-\(attempt)"
        }
        guard rename(path, candidate) == 0 else { throw JournalError.io("rename to \(candidate)", path) }
        for suffix in [".chain", ".snapshot"] where access(path + suffix, F_OK) == 0 {
            guard rename(path + suffix, candidate + suffix) == 0 else { throw JournalError.io("rename to \(candidate + suffix)", path + suffix) }
        }
        try DurableFile.syncDirectory(of: path)
        return candidate
    }

    /// A backup file's name says when it was made: the wall clock, not the
    /// injected ``Options/clock`` (a demo's or a test's clock may stand still).
    static func fileStamp(_ time: Timestamp) -> String {
        time.description.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }
}
