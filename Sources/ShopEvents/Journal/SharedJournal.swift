import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A journal opened by a writer that shares it with other processes while it
/// stays open — `shop-replay apply` reading commands as someone types them,
/// next to an app's ``ShopStore``. The writer's lock is held only while
/// writing: each `execute` takes it (waiting up to `lockTimeout` seconds,
/// blocking the calling thread — use ``ShopStore`` from async code), folds
/// what others appended (their chain checked), writes, `fsync`s and lets it go.
///
/// It is built on a ``Journal`` that it opens and then lets the lock go of;
/// every write goes through that journal with the lock held.
///
/// ```swift
/// let shared = try SharedJournal.open(path: "shop.ndjson", options: .init(actor: "ana"))
/// try shared.execute(.createList(list: ListID(), name: "Weekend", priority: nil))   // others may write meanwhile
/// print(shared.head)
/// shared.close()
/// ```
///
/// A `SharedJournal` is not thread-safe: use it from one task or actor.
public final class SharedJournal: JournalWriting {
    /// The journal every write goes through, with the lock held.
    let journal: Journal

    private init(journal: Journal) {
        self.journal = journal
        journal.file.shareLock()
    }

    /// Opens (or creates) the journal at `path`: the lock is taken, the
    /// journal read (a torn tail recovered), and the lock let go.
    public static func open(path: String, options: Journal.Options = .init()) throws(JournalError) -> SharedJournal {
        SharedJournal(journal: try Journal.open(path: path, options: options))
    }

    /// The same, the state folded or not (``Journal/open(path:options:existing:lockFD:foldsState:)``).
    static func open(path: String, options: Journal.Options, foldsState: Bool) throws(JournalError) -> SharedJournal {
        SharedJournal(journal: try Journal.open(path: path, options: options, existing: nil, foldsState: foldsState))
    }

    /// The same, for a caller that holds `lockFD` (the writer's lock) already:
    /// the journal owns it from here on, on failure too.
    static func open(path: String, options: Journal.Options, lockFD: Int32) throws(JournalError) -> SharedJournal {
        SharedJournal(journal: try Journal.open(path: path, options: options, existing: nil, lockFD: lockFD))
    }

    public var path: String { journal.path }
    public var options: Journal.Options { journal.options }
    /// The household as of the last event read or written (call ``refresh()`` for what others wrote since).
    public var state: ShopState { journal.state }
    /// `(seq, SHA-256 of the last line)` of what was last read or written.
    public var head: JournalHead { journal.head }
    /// Set when opening, or catching up, cut a torn tail or an incomplete command.
    public var recoveredTornTail: Journal.TornTailRecovery? { journal.recoveredTornTail }
    /// The seq of the chain snapshot opening started from, if one was good.
    public var startedFromSnapshot: Int? { journal.startedFromSnapshot }

    /// ``Journal/execute(batch:)``, after folding what others wrote.
    public func execute(batch requests: [CommandEnvelope]) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        try whileLocked { () throws(JournalError) in try journal.execute(batch: requests) }
    }

    /// ``Journal/execute(allOrNothing:)``, after folding what others wrote: a
    /// rejection leaves the caught-up state.
    public func execute(allOrNothing requests: [CommandEnvelope]) throws -> [CommandOutcome] {
        try lockAndCatchUp()
        defer { unlockAfterWriting() }
        return try journal.execute(allOrNothing: requests)
    }

    /// ``Journal/execute(batches:acknowledge:)``, the lock held for the whole run.
    public func execute<Batches: Sequence>(batches: Batches,
                                           acknowledge: ([Result<CommandOutcome, RuleViolation>]) throws -> Void) throws
    where Batches.Element == [CommandEnvelope] {
        try lockAndCatchUp()
        defer { unlockAfterWriting() }
        try journal.execute(batches: batches, acknowledge: acknowledge)
    }

    /// Folds what other processes appended, taking the lock for a moment.
    public func refresh() throws(JournalError) {
        try whileLocked { () throws(JournalError) in }
    }

    /// ``Journal/saveSnapshot()`` of what was last read or written.
    public func saveSnapshot() throws(JournalError) { try journal.saveSnapshot() }

    /// Releases the file and the lock file. Further calls fail with `journal_closed`.
    public func close() { journal.close() }

    /// ``Journal/close(discardingIfEmpty:)``: a journal this writer created and left empty is removed.
    public func close(discardingIfEmpty: Bool) { journal.close(discardingIfEmpty: discardingIfEmpty) }

    /// Takes the lock (blocking up to `lockTimeout`), folds what others wrote, runs `body`, lets the lock go.
    private func whileLocked<T>(_ body: () throws(JournalError) -> T) throws(JournalError) -> T {
        try lockAndCatchUp()
        defer { unlockAfterWriting() }
        return try body()
    }

    /// Takes the lock (blocking up to `lockTimeout`) and folds what others wrote; on failure the lock is let go.
    func lockAndCatchUp() throws(JournalError) {
        guard journal.file.isOpen else { throw journal.file.closedError() }
        try journal.file.lockBlocking(timeout: options.lockTimeout)
        do { try catchUp() } catch {
            unlockAfterWriting()
            throw error
        }
    }

    /// Tries once to take the writer's lock; `false` if another writer has it (``ShopStore`` waits without blocking).
    func lockForWriting() throws(JournalError) -> Bool { try journal.file.lockForWriting() }

    /// Lets the writer's lock go.
    func unlockAfterWriting() { journal.file.unlock() }

    /// Folds the lines other writers appended since this journal last read or
    /// wrote, checking their chain; with the lock held. A torn tail or an
    /// incomplete command that a crashed writer left is recovered as on opening.
    /// Damage closes the journal (`corrupt_line`): nothing more is written to it.
    func catchUp() throws(JournalError) {
        let file = journal.file
        guard file.isOpen else { throw file.closedError() }
        if try file.followThePath() {
            // Another file is there now (the empty one discarded, or the journal renamed aside): read it from the start.
            return try journal.load(recoverTail: true)
        }
        let fileSize = try file.currentSize(), size = file.end
        guard fileSize != size else { return }
        do throws(JournalError) {
            guard fileSize > size else {
                throw JournalError.corrupt(line: journal.chain.head.seq, offset: fileSize, "the journal is shorter (\(fileSize) bytes) than the \(size) bytes already read: someone cut it")
            }
            guard lseek(file.fd, off_t(size), SEEK_SET) == off_t(size) else { throw JournalError.io("seek", path) }
            var lines = JournalLines(fd: file.fd, path: path, startOffset: size, firstLineNumber: journal.chain.head.seq + 1)
            try journal.chain.accept(all: &lines)
            if lines.trailing != nil || journal.chain.openCommand != nil {
                // A writer crashed mid-write: recover exactly as opening does.
                try journal.load(recoverTail: true)
                return
            }
            file.end = lines.consumedOffset
        } catch {
            journal.close()
            throw error
        }
    }
}
