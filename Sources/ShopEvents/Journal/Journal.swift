import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durable, append-only NDJSON journal of one household, opened for writing.
///
/// Opening takes the writer's lock, checks every line (JSON, `seq`, `prev`
/// chain, `at`, command grouping) and folds the state. A torn last line left
/// by a crash is copied to `<journal>.torn-<UTC time>` and truncated, and
/// ``recoveredTornTail`` says so; any other damage refuses to open with the
/// line number and byte offset.
///
/// Each call of ``execute(_:)`` decides the command against the current state,
/// writes its events in one `write` and `fsync`s before returning.
/// ``execute(batch:)`` shares one `fsync` between many commands (group commit);
/// ``execute(batches:acknowledge:)`` pipelines batches, deciding the next
/// while the one before is made durable. A rejected command writes nothing.
///
/// ```swift
/// let journal = try Journal.open(path: "shop.ndjson", options: .init(actor: "ana"))
/// let home = HouseholdID(), milk = ItemID()
/// try journal.execute(.createHousehold(household: home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
/// try journal.execute(.createItem(item: milk, name: "Milk", location: nil, details: .init(unitPrice: 119)))
/// print(journal.head)          // 2:5c1e…
/// journal.close()
/// ```
///
/// A `Journal` is not thread-safe: use it from one task or actor.
public final class Journal {
    /// What the journal needs from outside: time, ids, who and where.
    public struct Options: Sendable {
        public var clock: Clock
        public var ids: IDGenerator
        /// The actor of commands that name none.
        public var actor: String
        /// Written as `device` on every event, if set.
        public var device: String?
        /// How long a second writer waits for the lock before `journal_locked`.
        public var lockTimeout: Double

        public init(clock: Clock = .system, ids: IDGenerator = .random, actor: String = "shop",
                    device: String? = nil, lockTimeout: Double = 5) {
            self.clock = clock; self.ids = ids; self.actor = actor; self.device = device; self.lockTimeout = lockTimeout
        }
    }

    /// What opening did with the end of a journal that a crash cut short: a
    /// torn last line, or the lines of a command that has fewer lines than
    /// its `commandEvents` (and any torn bytes after them).
    public struct TornTailRecovery: Hashable, Sendable {
        /// The number of the first line cut.
        public var line: Int
        /// Where the cut bytes started; the journal now ends here.
        public var offset: Int
        /// How many bytes were cut.
        public var length: Int
        /// Complete lines cut because their command was incomplete (0 for a torn line alone).
        public var commandLines: Int
        /// The incomplete command whose lines were cut, if any.
        public var command: CommandID?
        /// The file holding the cut bytes.
        public var backupPath: String
        /// Empty lines that ended the file (an editor's, or `echo >>`'s): what was cut, where it is more than 0.
        public var emptyLines = 0

        /// One sentence for people.
        public var summary: String {
            let what = command.map { "\(commandLines) line\(commandLines == 1 ? "" : "s") of command \($0), which a crash left incomplete" }
                ?? (emptyLines > 0 ? "\(emptyLines) empty line\(emptyLines == 1 ? "" : "s") at the end (no journal line is empty; an editor or `echo >>` adds them)" : "a torn last line")
            return "cut \(what): \(length) bytes from line \(line) (byte offset \(offset)), kept in \(backupPath)"
        }
    }

    /// What to do with an existing journal when creating a new one (``create(path:options:existing:)``).
    public enum ExistingJournal: Sendable {
        /// Fail with `journal_exists`, changing nothing.
        case refuse
        /// Rename the existing file to `<journal>.old-<UTC time>` (under the writer's lock) and start anew.
        case keepAsBackup
    }

    public let path: String
    public let options: Options
    /// Set when opening truncated a torn tail or an incomplete command.
    public private(set) var recoveredTornTail: TornTailRecovery?
    /// `true` when this open created the file (it did not exist when the lock was taken).
    public private(set) var createdFile = false
    /// Where ``create(path:options:existing:)`` kept the journal that was there before.
    public private(set) var previousJournalBackup: String?
    /// The seq of the chain snapshot (`<journal>.chain`) that opening started from, if one was good.
    public private(set) var startedFromSnapshot: Int?
    /// Opened by sync to write a replica (``openReplicaForSync(path:options:)``).
    private var isReplicaForSync = false

    private var fd: Int32
    private var lockFD: Int32
    /// Shared mode (``ShopStore``): the lock is held only between
    /// ``lockForWriting()`` and ``unlockAfterWriting()``, not while open.
    private(set) var holdsLock = true
    private var chain: JournalChain
    private var size: Int
    /// A pipelined run is under way (``execute(batches:acknowledge:)``): its
    /// encoding thread writes at offsets of its own, and holds the table of
    /// event ids, so nothing else may write or close the journal meanwhile.
    private var pipelining = false

    /// Stops a program that writes to, or closes, a journal from the `acknowledge` of its own pipelined run.
    private func notPipelining(_ what: String) {
        precondition(!pipelining, "\(what) was called on \(path) from the acknowledge of its own pipelined run (execute(batches:acknowledge:)); write after the run returns")
    }

    /// The current state of the household.
    public var state: ShopState { chain.state }
    /// `(seq, SHA-256 of the last line)`; `0` and all zeros for an empty journal.
    public var head: JournalHead { chain.head }
    /// The `at` of the last event.
    public var lastAt: Timestamp? { chain.lastAt }

    private init(path: String, options: Options, fd: Int32, lockFD: Int32, chain: JournalChain, size: Int) {
        self.path = path; self.options = options; self.fd = fd; self.lockFD = lockFD; self.chain = chain; self.size = size
    }

    deinit { close() }

    /// Opens (or creates) the journal at `path` for writing.
    ///
    /// The writer's lock (`<journal>.lock`, never removed) is taken before the
    /// journal is opened or created, so two processes meeting a new path
    /// always agree on one file. ``createdFile`` says whether this call created it.
    public static func open(path: String, options: Options = Options()) throws(JournalError) -> Journal {
        try open(path: path, options: options, existing: nil)
    }

    /// Creates a new journal at `path`, holding the writer's lock. A journal
    /// already there is refused or, with ``ExistingJournal/keepAsBackup``,
    /// renamed to `<journal>.old-<UTC time>` first (``previousJournalBackup``):
    /// its events are never lost.
    ///
    /// ```swift
    /// let journal = try Journal.create(path: "demo.ndjson", existing: .keepAsBackup)
    /// if let old = journal.previousJournalBackup { print("the earlier journal is now \(old)") }
    /// ```
    public static func create(path: String, options: Options = Options(), existing: ExistingJournal) throws(JournalError) -> Journal {
        try open(path: path, options: options, existing: existing)
    }

    private static func open(path: String, options: Options, existing: ExistingJournal?, lockFD held: Int32? = nil,
                             forSync: Bool = false) throws(JournalError) -> Journal {
        let path = JournalPath.absolute(path)
        let lockFD: Int32
        if let held { lockFD = held } else { lockFD = try WriterLock.acquire(journalPath: path, timeout: options.lockTimeout) }
        if !forSync, JournalPath.isReplica(path) {
            WriterLock.release(lockFD)
            throw JournalError(.replica, "\(path) is a replica of a sync hub (\(path).sync): only sync writes it; commands go to its outbox (`Replica`, `ReplicaStore`) — nothing was changed")
        }
        var backup: String?
        if let existing, access(path, F_OK) == 0 {
            switch existing {
            case .refuse:
                WriterLock.release(lockFD)
                throw JournalError(.exists, "\(path) already exists; nothing was changed — choose another path, or move it away first")
            case .keepAsBackup:
                do throws(JournalError) {
                    backup = try moveAside(path, stamp: Timestamp(Date()))
                } catch {
                    WriterLock.release(lockFD)
                    throw error
                }
            }
        }
        var created = true
        var fd = Posix.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0, errno == EEXIST {
            created = false
            fd = Posix.open(path, O_RDWR | O_CLOEXEC)
        }
        guard fd >= 0 else {
            let error = JournalError.io("open", path)
            WriterLock.release(lockFD)
            throw error
        }
        // From here on the journal owns both descriptors: close() releases each exactly once.
        let journal = Journal(path: path, options: options, fd: fd, lockFD: lockFD, chain: JournalChain(), size: 0)
        journal.isReplicaForSync = forSync
        journal.createdFile = created
        journal.previousJournalBackup = backup
        do throws(JournalError) {
            if created { try syncDirectory(of: path) }
            try journal.load(recoverTail: true)
        } catch {
            journal.close(discardingIfEmpty: true)
            throw error
        }
        return journal
    }

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

    /// Saves the writer's chain (head, state, command and event ids) to
    /// `<journal>.chain`, atomically, so that the next opening reads only what
    /// follows. A stale or damaged one is ignored; deleting it changes nothing.
    ///
    /// ```swift
    /// try journal.saveSnapshot()
    /// let again = try Journal.open(path: "shop.ndjson")      // reads only the lines after it
    /// print(again.startedFromSnapshot as Any)
    /// ```
    public func saveSnapshot() throws(JournalError) {
        guard fd >= 0 else { throw JournalError(.closed, "the journal \(path) is closed; open it again") }
        guard chain.head.seq > 0 else { return }
        try ChainSnapshot.save(chain, size: size, journal: path)
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
    private func lockBlocking() throws(JournalError) {
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
    private func followThePath() throws(JournalError) {
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
        if created { try Journal.syncDirectory(of: path) }
        chain = JournalChain()
        size = 0
        try load(recoverTail: true)
    }

    /// Renames the file at `path` to `<path>.old-<UTC time>` (never over another file),
    /// and its snapshots (`.chain`, `.snapshot`) with it: they describe the old
    /// journal, and the new one must not be taken for a cut-back copy of it.
    private static func moveAside(_ path: String, stamp: Timestamp) throws(JournalError) -> String {
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
        try syncDirectory(of: path)
        return candidate
    }

    /// A backup file's name says when it was made: the wall clock, not the
    /// injected ``Options/clock`` (a demo's or a test's clock may stand still).
    static func fileStamp(_ time: Timestamp) -> String {
        time.description.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }

    // MARK: A replica, written by sync only

    /// Opens a sync replica for the one writer it has, sync, which holds the
    /// writer's lock (`lockFD`, released by ``close()``, on failure too); a torn tail a killed pull left is backed up
    /// and cut as usual; lines a newer version wrote are kept (chain checked).
    static func openReplicaForSync(path: String, options: Options, lockFD: Int32) throws(JournalError) -> Journal {
        try open(path: path, options: options, existing: nil, lockFD: lockFD, forSync: true)
    }

    /// Appends lines pulled from the hub, byte for byte, after checking each
    /// one's chain (`seq`, `prev`, `at`, command grouping); with one `write`
    /// and one `fsync`. A command whose lines are not all there is left out
    /// (the next pull brings it whole). The first bad line throws and nothing
    /// is written. Returns how many lines were appended.
    func appendReplicated(_ lines: [[UInt8]]) throws(JournalError) -> Int {
        guard fd >= 0, holdsLock else { throw JournalError(.closed, "the replica \(path) is closed; open it again") }
        let saved = chain
        // Accepts the first `count` lines; returns how many end a whole command, and their bytes.
        func accept(_ count: Int) throws(JournalError) -> (lines: Int, bytes: Int) {
            var offset = size
            var whole = (lines: 0, bytes: 0)
            for (index, line) in lines[..<count].enumerated() {
                let number = chain.head.seq + 1, at = offset
                try line.withUnsafeBytes { raw in
                    Result { () throws(JournalError) in try chain.accept(raw, number: number, offset: at) }
                }.get()
                offset += line.count + 1
                if chain.openCommand == nil { whole = (index + 1, offset - size) }
            }
            return whole
        }
        var whole: (lines: Int, bytes: Int)
        do throws(JournalError) {
            whole = try accept(lines.count)
            if whole.lines < lines.count {
                // The last command is not all here: fold again without it (rare: a hub never splits one).
                chain = saved
                whole = try accept(whole.lines)
            }
        } catch {
            chain = saved
            throw error
        }
        guard whole.lines > 0 else { return 0 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(whole.bytes)
        for line in lines[..<whole.lines] {
            bytes.append(contentsOf: line)
            bytes.append(0x0A)
        }
        try writeDurably(bytes, at: size)
        return whole.lines
    }

    /// The command ids this journal holds.
    func holds(_ command: CommandID) -> Bool { chain.commands[command] != nil }

    /// Releases the lock and the file. Further calls fail with `journal_closed`.
    public func close() { close(discardingIfEmpty: false) }

    /// Releases the lock and the file; with `discardingIfEmpty`, first removes
    /// the journal if this ``Journal`` created it and nothing was written —
    /// so a run that failed leaves no empty journal behind. The file is
    /// removed while the lock is still held, and only while it is empty; the
    /// lock file itself is never removed (another process may be waiting on it).
    public func close(discardingIfEmpty: Bool) {
        notPipelining("close")
        if fd >= 0 {
            // Only under the lock (in shared mode: if it can be had at once), and only while empty.
            // A shared writer that opened this file meanwhile checks, under the lock, before it writes.
            if discardingIfEmpty, createdFile, lockFD >= 0, holdsLock || ((try? lockForWriting()) ?? false), isStillOurEmptyFile() {
                if unlink(path) == 0 { try? Journal.syncDirectory(of: path) }
            }
            _ = Posix.close(fd); fd = -1
        }
        if lockFD >= 0 { WriterLock.release(lockFD); lockFD = -1 }
    }

    /// The file at `path` is the one this journal has open, and it is empty.
    private func isStillOurEmptyFile() -> Bool {
        var mine = stat(), there = stat()
        guard fstat(fd, &mine) == 0, stat(path, &there) == 0 else { return false }
        return mine.st_dev == there.st_dev && mine.st_ino == there.st_ino && mine.st_size == 0 && there.st_size == 0
    }

    /// Executes one command: its events are durable when this returns.
    /// Throws ``RuleViolation`` if a rule rejects it (nothing is written) or ``JournalError``.
    @discardableResult
    public func execute(_ request: CommandEnvelope) throws -> CommandOutcome {
        try execute(batch: [request])[0].get()
    }

    /// Executes one command with the default actor and a fresh command id.
    @discardableResult
    public func execute(_ command: Command) throws -> CommandOutcome {
        try execute(CommandEnvelope(command))
    }

    /// Executes commands in order, each against the state the ones before it
    /// left, and makes all of their events durable with one `fsync` (group
    /// commit; a large batch's lines are written in pieces as they are encoded).
    /// Each command is accepted or rejected on its own. If a write or the
    /// `fsync` fails, the file is cut back to where it was and the error is
    /// thrown: none of the batch is acknowledged.
    public func execute(batch requests: [CommandEnvelope]) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        try execute(requests, allOrNothing: false)
    }

    /// The offset just after the last line this journal has read or written.
    var endPosition: JournalPosition {
        JournalPosition(seq: chain.head.seq, offset: size, lastLineOffset: chain.lastLineOffset, lastAt: chain.lastAt)
    }

    /// Executes commands in order as one unit: either every one is accepted
    /// and all of their events are written with one `write` and one `fsync`,
    /// or the first rejection is thrown as a ``BatchRejection`` and nothing is
    /// written at all. An import uses it, so that a file is imported whole or not at all.
    ///
    /// ```swift
    /// do { let outcomes = try journal.execute(allOrNothing: commands.map { CommandEnvelope($0) }) }
    /// catch let rejection as BatchRejection { print("command \(rejection.index): \(rejection.violation)") }
    /// ```
    public func execute(allOrNothing requests: [CommandEnvelope]) throws -> [CommandOutcome] {
        if !holdsLock, fd >= 0 {
            // Shared mode: what others wrote is folded first, so that a rejection restores the caught-up chain.
            try lockBlocking()
            defer { unlockAfterWriting() }
            try catchUp()
            return try execute(allOrNothing: requests)
        }
        let saved = chain
        let results = try execute(requests, allOrNothing: true)
        var outcomes: [CommandOutcome] = []
        for (index, result) in results.enumerated() {
            switch result {
            case let .success(outcome): outcomes.append(outcome)
            case let .failure(violation):
                chain = saved
                throw BatchRejection(index: index, violation: violation)
            }
        }
        return outcomes
    }

    private func execute(_ requests: [CommandEnvelope], allOrNothing: Bool) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        guard fd >= 0 else { throw JournalError(.closed, "the journal \(path) is closed; open it again") }
        if !holdsLock {
            // Shared mode: the lock for this write only, after folding what others wrote.
            try lockBlocking()
            defer { unlockAfterWriting() }
            try catchUp()
            return try execute(requests, allOrNothing: allOrNothing)
        }
        var batch = decideAndWrite(requests, allOrNothing: allOrNothing)
        if batch.bytes > 0, batch.failure == nil, !Journal.fullSync(fd) { batch.failure = .io("fsync", path) }
        return try results(of: batch)
    }

    /// A batch decided and written but not yet made durable (see ``execute(batches:acknowledge:)``).
    private struct WrittenBatch {
        var results: [Result<CommandOutcome, RuleViolation>] = []
        /// Commands the journal held already, answered from the file once it is durable.
        var retries: [(index: Int, command: CommandID)] = []
        /// With an encoder: the results whose command has events (the encoder gives them back,
        /// as written), and the command records begun, with the index of their first line.
        var withEvents: [Int] = []
        var commandsBegun: [(position: Int, line: Int)] = []
        /// Where its lines begin, and how many bytes they take.
        var start: Int
        var bytes = 0
        /// A write (or, once synced, the `fsync`) failed: how (taken where it failed, `errno` being per thread).
        var failure: JournalError?

        /// The events of the commands that have any, as the encoder wrote them, into their outcomes.
        mutating func fill(_ outcomes: [[RecordedEvent]]) {
            for (index, events) in zip(withEvents, outcomes) {
                guard case let .success(outcome) = results[index] else { continue }
                results[index] = .success(CommandOutcome(command: outcome.command, events: events, isRetry: false))
            }
        }
    }

    /// Decides the batch and writes its lines (no `fsync`); `size` is then their end.
    /// A large batch is encoded and hashed on a second thread while this one decides (see `LineEncoder`).
    /// Unless all or nothing, that thread also writes the lines as it goes (each command is accepted on
    /// its own, and the `fsync` still comes before any is reported; a crash leaves a torn tail, as always).
    private func decideAndWrite(_ requests: [CommandEnvelope], allOrNothing: Bool) -> WrittenBatch {
        notPipelining("execute")
        let startSize = size
        let encoder = requests.count >= Self.encodeAsideFrom
            ? LineEncoder(prev: chain.head.hash, start: startSize, writingTo: allOrNothing ? nil : (fd, path),
                          capacity: allOrNothing ? 512 * requests.count : LineEncoder.writeChunk + 4096, eventIDs: nil)
            : nil
        defer { encoder?.finish() }   // also on an early return (all or nothing, rejected): the encoding thread is let go
        let headBefore = chain.head
        var out = JSONWriter(capacity: encoder == nil ? 512 * max(requests.count, 1) : 0)
        var batch = WrittenBatch(start: startSize)
        guard decide(requests, into: &batch, encoder: encoder, out: &out, allOrNothing: allOrNothing) else { return batch }
        if let encoder {
            // The lines' hashes and offsets, now known, into the chain; the events, as written, into the outcomes.
            let written = encoder.finish()
            chain.linesWritten(written.lines, before: headBefore, commandsBegun: batch.commandsBegun)
            batch.fill(written.outcomes)
            out = written.out
            (batch.bytes, batch.failure) = (written.streamed, written.failure)
        }
        if batch.failure == nil, !out.isEmpty {
            if !out.withUnsafeBytes({ Journal.writeWhole(fd, $0, at: startSize + batch.bytes) }) { batch.failure = .io("write", path) }
            batch.bytes += out.count
        }
        size = startSize + batch.bytes
        return batch
    }

    /// Decides `requests` in order, each on the state the ones before left,
    /// into `batch`'s results. Each event goes to `encoder` if there is one
    /// (which claims its id if it was lent the table; its `prev` and line are
    /// set there), else its line is appended to `out` (from `batch.start`)
    /// here. False if all or nothing and a command was rejected: then the
    /// chain is left as it was up to that command (the caller puts it back).
    private func decide(_ requests: [CommandEnvelope], into batch: inout WrittenBatch, encoder: LineEncoder?,
                        out: inout JSONWriter, allOrNothing: Bool) -> Bool {
        let claimsHere = encoder?.claims != true
        var lines = 0
        batch.results.reserveCapacity(requests.count)
        // The chain is moved out while the batch is decided and put back after (also on the early
        // return): a local is used in place, where the property would be copied for each access.
        var chain = JournalChain()
        swap(&chain, &self.chain)
        defer { swap(&chain, &self.chain) }
        for index in requests.indices {
            let request = requests[index]
            let commandID = request.id ?? freshCommandID(chain)
            if chain.commands[commandID] != nil {
                batch.retries.append((batch.results.count, commandID))
                batch.results.append(.success(CommandOutcome(command: commandID, events: [], isRetry: true)))
                continue
            }
            do {
                let (events, at, actor) = try decide(request, chain)
                var recorded: [RecordedEvent] = []
                if encoder == nil { recorded.reserveCapacity(events.count) } else if !events.isEmpty { batch.withEvents.append(batch.results.count) }
                for (index, event) in events.enumerated() {
                    var eventID: EventID = options.ids.make()
                    while claimsHere, !chain.claim(eventID) { eventID = eventID.replacement() }
                    let r = RecordedEvent(seq: chain.head.seq + 1, id: eventID, at: at, actor: actor,
                                          device: request.device ?? options.device, command: commandID,
                                          commandEvents: index == 0 && events.count > 1 ? events.count : nil,
                                          correlation: request.correlation, event: event, prev: chain.head.hash)
                    if let encoder {
                        // Moved to the encoder, which gives it back in the command's outcome with its `prev` (and id, if taken).
                        if let begun = chain.appendedUnencoded(r) { batch.commandsBegun.append((begun, lines)) }
                        encoder.push(r)
                        lines += 1
                    } else {
                        let (lineStart, hash) = Self.appendLine(r, to: &out)
                        chain.appended(r, lineHash: hash, offset: batch.start + lineStart)
                        recorded.append(r)
                    }
                }
                batch.results.append(.success(CommandOutcome(command: commandID, events: recorded, isRetry: false)))
            } catch {
                batch.results.append(.failure(error))
                if allOrNothing { return false }   // nothing written; the caller puts the chain back as it was
            }
        }
        return true
    }

    /// A written batch, made durable: its results (retries answered from the
    /// file). If a write or its `fsync` failed, the file is cut back to where
    /// the batch began (and the chain rebuilt from it) and the error thrown.
    private func results(of batch: WrittenBatch) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        if let failure = batch.failure {
            rollBack(to: batch.start)
            throw failure
        }
        var results = batch.results
        for (index, command) in batch.retries {
            // Looked up now: a command repeated within the batch has its offset only once its lines are encoded.
            guard let record = chain.commands[command] else { continue }
            let events = try readEvents(at: record.offset, firstSeq: record.firstSeq, count: record.count)
            results[index] = .success(CommandOutcome(command: command, events: events, isRetry: true))
        }
        return results
    }

    /// Executes batches of commands one after the other, each as
    /// ``execute(batch:)`` does, with one `fsync` a batch (group commit), but
    /// pipelined: while one batch is encoded, written and made durable on
    /// threads of their own, the next batch is decided. `acknowledge` is
    /// called on this thread with each batch's results, in order, once that
    /// batch is durable, never before. If a write or an `fsync` fails, the
    /// file is cut back to the end of the last acknowledged batch and the
    /// error is thrown. If `acknowledge` throws, the run stops and the error
    /// is rethrown; the batch decided meanwhile is kept, made durable but not
    /// reported. In shared mode the writer's lock is held for the whole run.
    /// While `acknowledge` runs, the next batch is decided already: the
    /// journal's ``state`` includes it, and its ``head`` is known only once
    /// the run returns. Writing to the journal or closing it from
    /// `acknowledge` stops the program (a precondition): its encoding thread
    /// is still writing.
    ///
    /// ```swift
    /// let batches = [commands.map { CommandEnvelope($0) }]
    /// try journal.execute(batches: batches) { results in print(results.count, "commands durable") }
    /// ```
    public func execute<Batches: Sequence>(batches: Batches,
                                           acknowledge: ([Result<CommandOutcome, RuleViolation>]) throws -> Void) throws
    where Batches.Element == [CommandEnvelope] {
        guard fd >= 0 else { throw JournalError(.closed, "the journal \(path) is closed; open it again") }
        notPipelining("execute(batches:)")
        if !holdsLock {
            try lockBlocking()
            defer { unlockAfterWriting() }
            try catchUp()
            return try execute(batches: batches, acknowledge: acknowledge)
        }
        // One encoding thread for the whole run, which also claims the events' ids (the chain lends it
        // the table) and, at each batch's end, starts its `fsync` on a queue of their own. This thread
        // decides batch after batch without waiting for either; a batch lands (is waited for, its lines'
        // offsets and events taken in, its retries answered) only once the next one is decided.
        let syncs = DispatchQueue(label: "ShopEvents.Journal.fsync")
        pipelining = true
        let encoder = LineEncoder(prev: chain.head.hash, start: size, writingTo: (fd, path), capacity: LineEncoder.writeChunk + 4096,
                                  eventIDs: chain.lendEventIDs(), syncingOn: syncs)
        var end = chain.writtenEnd
        var running = true
        // Lets the encoding thread go, after it has encoded what it was given, and waits for the `fsync`s it started.
        func stop() {
            guard running else { return }
            running = false
            pipelining = false
            let finished = encoder.finish()
            chain.returnEventIDs(encoder.takeEventIDs())
            syncs.sync {}
            size = finished.end
        }
        var inFlight: (batch: WrittenBatch, encoded: EncodedBatch)?
        // The batch in flight, durable; a failed one is cut back and thrown (with whatever was written after it).
        func land() throws(JournalError) -> [Result<CommandOutcome, RuleViolation>]? {
            guard let (landing, encoded) = inFlight else { return nil }
            var batch = landing
            inFlight = nil
            encoded.done.wait()
            if let failure = encoded.failure {
                stop()
                batch.start = encoded.start
                batch.failure = failure
                return try results(of: batch)   // cuts the file back and throws
            }
            chain.setOffsets(encoded.lines, commandsBegun: batch.commandsBegun)
            end.advance(over: encoded.lines)
            batch.fill(encoded.outcomes)
            encoded.outcomes = []
            return try results(of: batch)
        }
        var dummy = JSONWriter(capacity: 0)
        do {
            defer {
                // Unless cut back (the chain then read again from the file), the chain's end is that of the last line landed.
                if running {
                    stop()
                    chain.writtenEnd = end
                }
            }
            do {
                for requests in batches {
                    var batch = WrittenBatch(start: -1)
                    _ = decide(requests, into: &batch, encoder: encoder, out: &dummy, allOrNothing: false)
                    let encoded = EncodedBatch()
                    encoder.endBatch(encoded)
                    let previous = try land()
                    inFlight = (batch, encoded)
                    if let previous { try acknowledge(previous) }
                }
                if let last = try land() { try acknowledge(last) }
            } catch {
                _ = try? land()
                throw error
            }
        }
    }

    /// Writes `bytes` at `offset`, whole; false if a write fails.
    private func writeWhole(_ bytes: [UInt8], at offset: Int) -> Bool {
        bytes.withUnsafeBytes { Journal.writeWhole(fd, $0, at: offset) }
    }

    /// Writes `raw` to `fd` at `offset`, whole (short writes continued, `EINTR` retried); false if a write fails.
    fileprivate static func writeWhole(_ fd: Int32, _ raw: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < raw.count {
            let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// From how many commands a batch is encoded and hashed on a second thread.
    static let encodeAsideFrom = 64

    /// Appends the event's line and its newline to `out`: where the line starts, and its SHA-256.
    fileprivate static func appendLine(_ recorded: RecordedEvent, to out: inout JSONWriter) -> (start: Int, hash: SHA256Digest) {
        let start = out.count
        EventLineCodec.append(recorded, to: &out)
        let hash = out.withUnsafeBytes(from: start) { SHA256.hash($0) }
        out.append(0x0A)
        return (start, hash)
    }

    /// A command id the journal has not seen: an injected generator may repeat
    /// ids after a reopen, and a repeated id would be taken for a retry.
    private func freshCommandID(_ chain: borrowing JournalChain) -> CommandID {
        var id: CommandID = options.ids.make()
        while chain.commands[id] != nil { id = options.ids.make() }
        return id
    }

    /// The envelope rules and the command's rules, decided in the domain.
    private func decide(_ request: CommandEnvelope, _ chain: borrowing JournalChain) throws(RuleViolation) -> ([Event], Timestamp, String) {
        let decided = try ShopDecider.decide(request, chain.state, after: JournalEnd(seq: chain.head.seq, lastAt: chain.lastAt),
                                             now: options.clock.now(), defaultActor: options.actor)
        return (decided.events, decided.at, decided.actor)
    }

    // MARK: Durable writing

    private func writeDurably(_ bytes: [UInt8], at offset: Int) throws(JournalError) {
        notPipelining("a write")
        let failure: JournalError? = !writeWhole(bytes, at: offset) ? .io("write", path) : !Journal.fullSync(fd) ? .io("fsync", path) : nil
        if let failure {
            rollBack(to: offset)
            throw failure
        }
        size = offset + bytes.count
    }

    /// After a failed write: cut the file back to the last acknowledged byte
    /// and rebuild the state from disk. If even that fails, the journal closes.
    private func rollBack(to offset: Int) {
        if ftruncate(fd, off_t(offset)) == 0, Journal.fullSync(fd) {
            chain = JournalChain()
            do {
                try load(recoverTail: false)
                return
            } catch {}
        }
        close()
    }

    static func fullSync(_ fd: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return true }
        #endif
        while fsync(fd) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Replaces `file` with `bytes` or leaves it as it was: a temporary file
    /// beside it, written whole, `fsync`, rename, and the folder synced.
    package static func writeAtomically(_ bytes: [UInt8], to file: String) throws(JournalError) {
        let temporary = "\(file).tmp-\(getpid())"
        let fd = Posix.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.io("create", temporary) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = JournalError.io("write", temporary)
                _ = Posix.close(fd); unlink(temporary)
                throw error
            }
            done += n
        }
        let synced = fullSync(fd)
        _ = Posix.close(fd)
        guard synced else {
            unlink(temporary)
            throw JournalError.io("fsync", temporary)
        }
        guard rename(temporary, file) == 0 else {
            let error = JournalError.io("rename \(temporary) to", file)
            unlink(temporary)
            throw error
        }
        try syncDirectory(of: file)
    }

    static func syncDirectory(of path: String) throws(JournalError) {
        let directory = (path as NSString).deletingLastPathComponent
        let dirFD = Posix.open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard dirFD >= 0 else { throw JournalError.io("open directory of", path) }
        defer { _ = Posix.close(dirFD) }
        guard fullSync(dirFD) else { throw JournalError.io("fsync directory of", path) }
    }

    // MARK: Reading back

    /// Reads and checks every line; with `recoverTail`, backs up and cuts a
    /// torn last line, and the lines of an incomplete command at the end.
    private func load(recoverTail: Bool) throws(JournalError) {
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
        guard Journal.fullSync(fd) else { throw JournalError.io("fsync", path) }
        recoveredTornTail = TornTailRecovery(line: cut.line, offset: cut.offset, length: bytes.count,
                                             commandLines: cut.open?.have ?? 0, command: cut.open?.command, backupPath: backup,
                                             emptyLines: cut.open == nil ? lines.trailing?.emptyLines ?? 0 : 0)
        // Fold again up to the cut: the state must not hold the events just removed.
        try load(recoverTail: false)
    }

    private func readBytes(from start: Int, to end: Int) throws(JournalError) -> [UInt8] {
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
    private func backUp(_ bytes: [UInt8]) throws(JournalError) -> String {
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
        guard Journal.fullSync(backupFD) else { throw JournalError.io("fsync backup", candidate) }
        try Journal.syncDirectory(of: candidate)
        return candidate
    }

    private func readEvents(at offset: Int, firstSeq: Int, count: Int) throws(JournalError) -> [RecordedEvent] {
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

/// The command of an all-or-nothing batch that a rule rejected; nothing of
/// the batch was written.
public struct BatchRejection: ShopError, Hashable {
    /// Its place in the batch, from 0.
    public var index: Int
    public var violation: RuleViolation

    public var code: String { violation.code }
    public var message: String { "command \(index + 1) of the batch: \(violation.message); nothing of the batch was written" }
}


/// The writer's exclusive advisory lock: `flock` on `<journal>.lock`, which
/// holds the pid of the process that has it.
enum WriterLock {
    static func acquire(journalPath: String, timeout: Double) throws(JournalError) -> Int32 {
        let fd = try openFile(journalPath: journalPath)
        let lockPath = journalPath + ".lock"
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = JournalError.io("lock", lockPath)
                _ = Posix.close(fd)
                throw error
            }
            if Date() >= deadline {
                let pid = holder(fd)
                _ = Posix.close(fd)
                throw JournalError(.locked, "\(journalPath) is being written by process \(pid) (lock \(lockPath)); waited \(timeout) s — try again when it is done")
            }
            usleep(10_000)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    static func release(_ fd: Int32) {
        _ = ftruncate(fd, 0)
        _ = flock(fd, LOCK_UN)
        _ = Posix.close(fd)
    }

    /// The lock file opened, not locked: for a writer that locks only while it writes.
    static func openFile(journalPath: String) throws(JournalError) -> Int32 {
        let lockPath = journalPath + ".lock"
        let fd = Posix.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            // Said of the journal, which is what the caller named; the lock file is how it is guarded.
            let code = errno
            let folder = (journalPath as NSString).deletingLastPathComponent
            let why = code == ENOENT ? "the folder \(folder.isEmpty ? "." : folder) does not exist"
                : "\(String(cString: strerror(code))) (errno \(code)) making its lock file \(lockPath)"
            throw JournalError(.io, "cannot open the journal \(journalPath): \(why)")
        }
        return fd
    }

    /// One attempt at the lock; records this process's pid when it is taken.
    static func tryLock(_ fd: Int32, journalPath: String) throws(JournalError) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw JournalError.io("lock", journalPath + ".lock")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return true
    }

    /// The pid the lock file names, or "unknown".
    static func holder(_ fd: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &bytes, 31, 0)
        return n > 0 ? String(decoding: bytes[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"
    }

    /// Lets the lock go and keeps the file open.
    static func unlock(_ fd: Int32) {
        _ = ftruncate(fd, 0)
        _ = flock(fd, LOCK_UN)
    }
}

/// The few system calls whose Swift names differ between Linux and Apple platforms.
enum Posix {
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        #if canImport(Glibc)
        return Glibc.open(path, flags, mode)
        #else
        return Darwin.open(path, flags, mode)
        #endif
    }

    @discardableResult
    static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.close(fd)
        #else
        return Darwin.close(fd)
        #endif
    }
}

/// Encodes and hashes a batch's lines on a thread of its own while the
/// journal decides the commands that follow: a line needs the hash of the
/// line before (its `prev`), deciding needs only the state, so the two run
/// side by side. Events are handed over ``handOverEvery`` at a time (16 and
/// 96 measured no better); ``finish()`` waits for the last line and gives
/// the bytes, each line's offset and hash, and the events as written. Given a
/// file, it also writes the lines to it, ``writeChunk`` bytes at a time while
/// they are still in the cache, and gives back only how many it wrote.
///
/// A pipelined run (``Journal/execute(batches:acknowledge:)``) keeps one for
/// all its batches and marks each batch's end (``endBatch(_:)``): there the
/// encoder writes what it holds, fills in the ``EncodedBatch``, and starts
/// the batch's `fsync` on the queue it was given, while it goes on with the
/// next batch's lines.
private final class LineEncoder: @unchecked Sendable {
    // @unchecked: `queue`, `spare`, `ends`, `finished` and `running` are guarded by `condition`;
    // `staged` and `pushed` are the caller's; the rest is the encoding thread's until
    // `finish()` has waited for it (an `EncodedBatch` is the caller's once it is `done`).
    // `@exclusivity(unchecked)`: those each thread alone touches, many times an event, go
    // without the runtime's check of overlapping accesses (1–2 % of the deciding thread).
    private let condition = NSCondition()
    /// The events handed over, in the buffers they were staged in (moved, not copied).
    private var queue: [[RecordedEvent]] = []
    /// Buffers the encoding thread has emptied, for the caller to stage in again.
    private var spare: [[RecordedEvent]] = []
    /// Batch ends handed over: after how many events each comes.
    private var ends: [(after: Int, batch: EncodedBatch)] = []
    private var finished = false
    private var running = true
    @exclusivity(unchecked) private var staged: [RecordedEvent] = []
    @exclusivity(unchecked) private var pushed = 0
    @exclusivity(unchecked) private var out: JSONWriter
    @exclusivity(unchecked) private var lines: [(offset: Int, hash: SHA256Digest)] = []
    @exclusivity(unchecked) private var prev: SHA256Digest
    private let start: Int
    private let file: (fd: Int32, path: String)?
    private let syncs: DispatchQueue?
    private var streamed = 0
    /// Where the current batch's lines begin (a pipelined run).
    private var batchStart: Int
    private var failure: JournalError?
    /// The journal's event ids, if lent: then each line's id is claimed here.
    @exclusivity(unchecked) private var eventIDs: IDIndex<EventKind>?
    /// Whether the events' ids are claimed here.
    let claims: Bool
    /// The events as written (`prev` set, and a fresh id where the journal held theirs already),
    /// one array a command: the outcomes' events.
    @exclusivity(unchecked) private var outcomes: [[RecordedEvent]] = []
    @exclusivity(unchecked) private var current: [RecordedEvent] = []
    private var result: Finished?

    /// How many bytes are written at a time when writing as it goes.
    static let writeChunk = 64 << 10

    /// How many events the deciding thread hands over at a time.
    static let handOverEvery = 32

    /// The encoded lines: their bytes (those not written yet), each line's offset and hash,
    /// how many bytes were written to the file, and how a write failed if one did; the
    /// events as written, one array for each command that has any, in order (since the
    /// last batch's end, in a pipelined run); the offset after the last byte written.
    struct Finished {
        var out: JSONWriter
        var lines: [(offset: Int, hash: SHA256Digest)]
        var streamed: Int
        var failure: JournalError?
        var outcomes: [[RecordedEvent]]
        var end: Int
    }

    /// `syncingOn`: the queue for each batch's `fsync` in a pipelined run (with a file).
    init(prev: SHA256Digest, start: Int, writingTo file: (fd: Int32, path: String)?, capacity: Int,
         eventIDs: IDIndex<EventKind>?, syncingOn syncs: DispatchQueue? = nil) {
        self.eventIDs = eventIDs
        claims = eventIDs != nil
        out = JSONWriter(capacity: capacity)
        self.prev = prev
        self.start = start
        batchStart = start
        self.file = file
        self.syncs = syncs
        lines.reserveCapacity(1024)
        staged.reserveCapacity(Self.handOverEvery)
        Thread { [self] in run() }.start()
    }

    /// One more event, its `prev` to be filled in.
    func push(_ recorded: consuming RecordedEvent) {
        staged.append(recorded)
        pushed += 1
        if staged.count == Self.handOverEvery { handOver(ending: nil, finishing: false) }
    }

    /// The end of a batch, after the events pushed so far: `batch` is filled in and `done`
    /// once its lines are written and, if any were, made durable.
    func endBatch(_ batch: EncodedBatch) { handOver(ending: batch, finishing: false) }

    /// Hands over the rest, waits until every line is encoded (and written),
    /// and gives them (the first call; later calls, as on an early return, give the same).
    @discardableResult
    func finish() -> Finished {
        if let result { return result }
        handOver(ending: nil, finishing: true)
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
        if !current.isEmpty { outcomes.append(current) }
        current = []
        result = Finished(out: out, lines: lines, streamed: streamed, failure: failure, outcomes: outcomes, end: start + streamed + out.count)
        outcomes = []
        return result!
    }

    /// After ``finish()``: the event-id table, moved out (this keeps no reference to it,
    /// so the journal's next insert does not copy it).
    func takeEventIDs() -> IDIndex<EventKind> {
        finish()
        return eventIDs.take()!
    }

    /// Hands the staged events (and a batch's end, or the end of all) to the encoding thread.
    private func handOver(ending batch: EncodedBatch?, finishing: Bool) {
        condition.lock()
        if finishing { finished = true }
        // The staged buffer goes over whole, and one the encoding thread has emptied takes its place.
        if !staged.isEmpty {
            var full = spare.popLast() ?? []
            swap(&full, &staged)
            queue.append(full)
        }
        if let batch { ends.append((pushed, batch)) }
        condition.broadcast()
        condition.unlock()
        if staged.capacity < Self.handOverEvery { staged.reserveCapacity(Self.handOverEvery) }
    }

    private func run() {
        var chunks: [[RecordedEvent]] = []
        var pendingEnds: [(after: Int, batch: EncodedBatch)] = []
        var taken: [(after: Int, batch: EncodedBatch)] = []
        var encoded = 0
        // The batch ends that come after `encoded` events.
        func closeBatches() {
            while let first = pendingEnds.first, first.after == encoded {
                pendingEnds.removeFirst()
                close(first.batch)
            }
        }
        while true {
            condition.lock()
            while queue.isEmpty, ends.isEmpty, !finished { condition.wait() }
            if queue.isEmpty, ends.isEmpty {
                condition.unlock()
                write()
                condition.lock()
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            swap(&chunks, &queue)
            swap(&taken, &ends)
            condition.unlock()
            pendingEnds.append(contentsOf: taken)
            taken.removeAll(keepingCapacity: true)
            for chunk in chunks.indices {
                for var recorded in chunks[chunk] {
                    closeBatches()
                    while claims, !eventIDs!.insert(recorded.id).inserted {
                        // An injected generator may repeat ids after a reopen: the replacement the deciding thread would take.
                        recorded.id = recorded.id.replacement()
                    }
                    recorded.prev = prev
                    let (lineStart, hash) = Journal.appendLine(recorded, to: &out)
                    prev = hash
                    lines.append((start + streamed + lineStart, hash))
                    // A command's events come one after the other, and the next command's have another id
                    // (a command the journal holds already is a retry, and not encoded again).
                    if let first = current.first, first.command != recorded.command {
                        outcomes.append(current)
                        current = []
                    }
                    current.append(recorded)
                    encoded += 1
                }
                chunks[chunk].removeAll(keepingCapacity: true)
            }
            closeBatches()
            condition.lock()
            spare.append(contentsOf: chunks)
            condition.unlock()
            chunks.removeAll(keepingCapacity: true)
            if out.count >= Self.writeChunk { write() }
        }
    }

    /// A batch's end (pipelined): its lines written, its part filled in, its `fsync` started.
    private func close(_ batch: EncodedBatch) {
        write()
        if !current.isEmpty { outcomes.append(current) }
        current = []
        batch.start = batchStart
        batch.bytes = start + streamed - batchStart
        batch.lines = lines
        batch.outcomes = outcomes
        batch.failure = failure
        lines = []
        lines.reserveCapacity(1024)
        outcomes = []
        batchStart = start + streamed
        if let file, let syncs, batch.bytes > 0, failure == nil {
            syncs.async {
                if !Journal.fullSync(file.fd) { batch.failure = .io("fsync", file.path) }
                batch.done.signal()
            }
        } else {
            batch.done.signal()
        }
    }

    /// Writes what is encoded, when writing to a file (after a failure, nothing more).
    private func write() {
        guard let file, !out.isEmpty, failure == nil else { return }
        if !out.withUnsafeBytes({ Journal.writeWhole(file.fd, $0, at: start + streamed) }) { failure = .io("write", file.path) }
        streamed += out.count
        out.removeAll()
    }
}

/// A batch of a pipelined run, as the encoding thread wrote it: where its
/// lines begin and how many bytes they take, each line's offset and hash,
/// the events as written (one array for each command that has any), and how
/// a write or its `fsync` failed if one did. The caller reads it once `done`
/// is signalled: after the lines are written and, if any were, synced.
private final class EncodedBatch: @unchecked Sendable {
    // @unchecked: written by the encoding thread (and the `fsync` after it) before `done` is signalled, read after.
    var start = 0
    var bytes = 0
    var lines: [(offset: Int, hash: SHA256Digest)] = []
    var outcomes: [[RecordedEvent]] = []
    var failure: JournalError?
    let done = DispatchSemaphore(value: 0)
}
