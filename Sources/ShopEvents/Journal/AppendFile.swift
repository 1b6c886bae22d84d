import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durable append, alone: the file a journal appends to and the
/// writer's lock that guards it. It knows bytes and offsets, not lines:
///
/// - **open** takes the lock first (`<journal>.lock`, never removed), then
///   opens or creates the file, so two processes meeting a new path agree on one file;
/// - **append** writes bytes whole at the end and `fsync`s them, or cuts the
///   file back to where it was and throws: a failed append leaves nothing;
/// - **cut the tail** copies bytes a crash left at the end to
///   `<journal>.torn-<UTC time>`, makes the copy durable, then truncates;
/// - **close** releases the file and the lock, each exactly once.
///
/// What a line is, the chain, and which tail is torn are the journal's
/// (``Journal``, ``ReplicaJournal``); the writers that write from threads of
/// their own (the pipelined encoder, its `fsync` queue) get a ``Writer``.
///
/// Shared mode — a writer that shares the journal with other processes — is
/// the lock held only between ``lockForWriting()`` and ``unlock()``, and
/// ``followThePath()`` before each write.
final class AppendFile {
    let path: String
    private(set) var fd: Int32
    private(set) var lockFD: Int32
    /// Always, unless shared: then only while writing.
    private(set) var holdsLock = true
    /// The end of what the journal has read and checked, or written and synced: the next append goes here.
    var end = 0
    /// This open (or, shared, the last ``followThePath()``) created the file.
    private(set) var created: Bool
    /// Where opening kept a journal that was there before (``Journal/ExistingJournal/keepAsBackup``).
    private(set) var previousBackup: String?

    private init(path: String, fd: Int32, lockFD: Int32, created: Bool, previousBackup: String?) {
        self.path = path; self.fd = fd; self.lockFD = lockFD; self.created = created; self.previousBackup = previousBackup
    }

    deinit { close(discardingIfEmpty: false) }

    var isOpen: Bool { fd >= 0 }

    /// What a thread of its own needs to write and sync this file: the descriptor and its name.
    /// Valid while the file is open; the journal does not close it while a writer is out.
    struct Writer: Sendable {
        let fd: Int32
        let path: String

        /// Writes `raw` at `offset`, whole.
        func write(_ raw: UnsafeRawBufferPointer, at offset: Int) throws(JournalError) {
            guard DurableFile.writeWhole(fd, raw, at: offset) else { throw JournalError.io("write", path) }
        }

        /// Writes the bytes of `out` at `offset`, whole.
        func write(_ out: borrowing JSONWriter, at offset: Int) throws(JournalError) {
            guard out.withUnsafeBytes({ DurableFile.writeWhole(fd, $0, at: offset) }) else { throw JournalError.io("write", path) }
        }

        /// Makes what was written durable.
        func sync() throws(JournalError) {
            guard DurableFile.sync(fd) else { throw JournalError.io("fsync", path) }
        }
    }

    var writer: Writer { Writer(fd: fd, path: path) }

    /// Takes the writer's lock (unless `lockFD` holds it already; on failure it is released),
    /// deals with a file already there as `existing` says, and opens or creates the file.
    static func open(path: String, lockTimeout: Double, existing: Journal.ExistingJournal?,
                     lockFD held: Int32?) throws(JournalError) -> AppendFile {
        let lockFD: Int32
        if let held { lockFD = held } else { lockFD = try WriterLock.acquire(journalPath: path, timeout: lockTimeout) }
        do throws(JournalError) {
            var backup: String?
            if let existing, access(path, F_OK) == 0 {
                switch existing {
                case .refuse:
                    throw JournalError(.exists, "\(path) already exists; nothing was changed — choose another path, or move it away first")
                case .keepAsBackup:
                    backup = try moveAside(path, stamp: Timestamp(Date()))
                }
            }
            let (fd, created) = try openOrCreate(path)
            let file = AppendFile(path: path, fd: fd, lockFD: lockFD, created: created, previousBackup: backup)
            if created {
                do throws(JournalError) { try DurableFile.syncDirectory(of: path) } catch {
                    file.close(discardingIfEmpty: true)
                    throw error
                }
            }
            return file
        } catch {
            WriterLock.release(lockFD)
            throw error
        }
    }

    private static func openOrCreate(_ path: String) throws(JournalError) -> (fd: Int32, created: Bool) {
        var fd = Posix.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd >= 0 { return (fd, true) }
        if errno == EEXIST { fd = Posix.open(path, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { throw JournalError.io("open", path) }
        return (fd, false)
    }

    func closedError() -> JournalError { JournalError(.closed, "the journal \(path) is closed; open it again") }

    // MARK: Appending

    /// Writes `bytes` at ``end`` and `fsync`s them; then ``end`` is after them.
    /// If either fails, the file is cut back to ``end`` (and closed if even that
    /// fails) and the error thrown: the caller reads back what is there.
    func append(_ bytes: [UInt8]) throws(JournalError) {
        guard isOpen else { throw closedError() }
        do throws(JournalError) {
            try bytes.withUnsafeBytes { raw in Result { () throws(JournalError) in try writer.write(raw, at: end) } }.get()
            try writer.sync()
        } catch {
            cutBack(to: end)
            throw error
        }
        end += bytes.count
    }

    /// After a failed write: cuts the file back to `offset` (the last acknowledged byte) and makes that durable;
    /// if even that fails, closes the file (nothing more is written to it). True if cut back.
    @discardableResult
    func cutBack(to offset: Int) -> Bool {
        if isOpen, ftruncate(fd, off_t(offset)) == 0, DurableFile.sync(fd) {
            end = offset
            return true
        }
        close(discardingIfEmpty: false)
        return false
    }

    /// The file's size now (others may have appended, in shared mode).
    func currentSize() throws(JournalError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.io("stat", path) }
        return Int(info.st_size)
    }

    // MARK: A torn tail

    /// Copies the bytes from `offset` to `through` to `<journal>.torn-<UTC time>`, makes the copy
    /// durable, then cuts the file at `offset`: how many bytes were cut, and where the copy is.
    func cutTail(from offset: Int, through: Int) throws(JournalError) -> (length: Int, backup: String) {
        let bytes = try read(from: offset, to: through)
        let backup = try backUp(bytes)
        guard ftruncate(fd, off_t(offset)) == 0 else { throw JournalError.io("truncate", path) }
        guard DurableFile.sync(fd) else { throw JournalError.io("fsync", path) }
        return (bytes.count, backup)
    }

    func read(from start: Int, to end: Int) throws(JournalError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: end - start)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in pread(fd, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(start + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw JournalError.io("read", path) }
            done += n
        }
        return bytes
    }

    private func backUp(_ bytes: [UInt8]) throws(JournalError) -> String {
        let stamp = Self.fileStamp(Timestamp(Date()))
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
        let copy = Writer(fd: backupFD, path: candidate)
        try bytes.withUnsafeBytes { raw in Result { () throws(JournalError) in try copy.write(raw, at: 0) } }.get()
        try copy.sync()
        try DurableFile.syncDirectory(of: candidate)
        return candidate
    }

    // MARK: Shared mode: the lock only while writing

    /// Lets the lock go until the next ``lockForWriting()``.
    func shareLock() {
        guard holdsLock, lockFD >= 0 else { return }
        WriterLock.unlock(lockFD)
        holdsLock = false
    }

    /// Tries once to take the writer's lock; `false` if another writer has it.
    func lockForWriting() throws(JournalError) -> Bool {
        guard lockFD >= 0 else { throw closedError() }
        guard !holdsLock else { return true }
        guard try WriterLock.tryLock(lockFD, journalPath: path) else { return false }
        holdsLock = true
        return true
    }

    /// Takes the lock, waiting at most `timeout` seconds (blocking this thread).
    func lockBlocking(timeout: Double) throws(JournalError) {
        let deadline = Date().addingTimeInterval(timeout)
        var pause: UInt32 = 1_000
        while try !lockForWriting() {
            guard Date() < deadline else {
                throw JournalError(.locked, "\(path) is being written by process \(WriterLock.holder(lockFD)) (lock \(path).lock); waited \(timeout) s — try again when it is done")
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// Lets the lock go (after a shared write).
    func unlock() { shareLock() }

    /// With the lock held: if `path` no longer names the file open here — an empty journal
    /// discarded by the process that created it, or a journal renamed aside — opens (or creates)
    /// what is there now, so that nothing is ever written to a file no one can find. True if it
    /// did: the caller reads it from the start.
    func followThePath() throws(JournalError) -> Bool {
        var mine = stat(), there = stat()
        guard fstat(fd, &mine) == 0 else { throw JournalError.io("stat", path) }
        if stat(path, &there) == 0, there.st_dev == mine.st_dev, there.st_ino == mine.st_ino { return false }
        let (newFD, created) = try Self.openOrCreate(path)
        _ = Posix.close(fd)
        fd = newFD
        self.created = created
        end = 0
        if created { try DurableFile.syncDirectory(of: path) }
        return true
    }

    // MARK: Closing

    /// Releases the file and the lock. With `discardingIfEmpty`, first removes the file if this
    /// open created it and nothing was written — so a run that failed leaves no empty journal — but
    /// only under the lock (shared: if it can be had at once) and only while it is empty. The lock
    /// file itself is never removed (another process may be waiting on it).
    func close(discardingIfEmpty: Bool) {
        if fd >= 0 {
            if discardingIfEmpty, created, lockFD >= 0, holdsLock || ((try? lockForWriting()) ?? false), isStillOurEmptyFile() {
                if unlink(path) == 0 { try? DurableFile.syncDirectory(of: path) }
            }
            _ = Posix.close(fd); fd = -1
        }
        if lockFD >= 0 { WriterLock.release(lockFD); lockFD = -1 }
    }

    /// The file at `path` is the one open here, and it is empty.
    private func isStillOurEmptyFile() -> Bool {
        var mine = stat(), there = stat()
        guard fstat(fd, &mine) == 0, stat(path, &there) == 0 else { return false }
        return mine.st_dev == there.st_dev && mine.st_ino == there.st_ino && mine.st_size == 0 && there.st_size == 0
    }

    // MARK: Names of kept files

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

    /// A backup file's name says when it was made: the wall clock, not an
    /// injected clock (a demo's or a test's clock may stand still).
    static func fileStamp(_ time: Timestamp) -> String {
        time.description.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }
}
