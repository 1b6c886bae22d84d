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
    public internal(set) var recoveredTornTail: TornTailRecovery?
    /// `true` when this open created the file (it did not exist when the lock was taken).
    public var createdFile: Bool { file.created }
    /// Where ``create(path:options:existing:)`` kept the journal that was there before.
    public var previousJournalBackup: String? { file.previousBackup }
    /// The seq of the chain snapshot (`<journal>.chain`) that opening started from, if one was good.
    public internal(set) var startedFromSnapshot: Int?

    /// The file and its lock: every byte written goes through it.
    let file: AppendFile
    var chain: JournalChain
    /// A pipelined run is under way (``execute(batches:acknowledge:)``): its
    /// encoding thread writes at offsets of its own, and holds the table of
    /// event ids, so nothing else may write or close the journal meanwhile.
    var pipelining = false
    /// The chain folds the events into ``state`` (see ``open(path:options:existing:lockFD:foldsState:)``).
    private var foldsState = true

    /// Stops a program that writes to, or closes, a journal from the `acknowledge` of its own pipelined run.
    func notPipelining(_ what: String) {
        precondition(!pipelining, "\(what) was called on \(path) from the acknowledge of its own pipelined run (execute(batches:acknowledge:)); write after the run returns")
    }

    /// The current state of the household.
    public var state: ShopState { chain.state }
    /// `(seq, SHA-256 of the last line)`; `0` and all zeros for an empty journal.
    public var head: JournalHead { chain.head }
    /// The `at` of the last event.
    public var lastAt: Timestamp? { chain.lastAt }

    private init(file: AppendFile, options: Options) {
        self.path = file.path; self.options = options; self.file = file; self.chain = JournalChain()
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

    /// Without `foldsState`, the journal keeps no ``state`` (empty): only its chain, command and event
    /// ids — for a writer that appends lines decided on a state kept elsewhere (``HubJournalFile``).
    static func open(path: String, options: Options, existing: ExistingJournal?, lockFD held: Int32? = nil,
                     foldsState: Bool = true) throws(JournalError) -> Journal {
        let path = JournalPath.absolute(path)
        if JournalPath.isReplica(path) {
            if let held { WriterLock.release(held) }
            throw JournalError(.replica, "\(path) is a replica of a sync hub (\(path).sync): only sync writes it; commands go to its outbox (`Replica`, `ReplicaStore`) — nothing was changed")
        }
        // The lock file stays once made: what is no journal is refused before it is.
        if held == nil, existing == nil { try checkFirstLine(path) }
        let file = try AppendFile.open(path: path, lockTimeout: options.lockTimeout, existing: existing, lockFD: held)
        // From here on the journal owns the file: close() releases it.
        let journal = Journal(file: file, options: options)
        journal.foldsState = foldsState
        do throws(JournalError) {
            try journal.load(recoverTail: true)
        } catch {
            journal.close(discardingIfEmpty: true)
            throw error
        }
        return journal
    }

    /// What opening would refuse anyway, refused before the writer's lock is
    /// taken (its file is never removed, and must not be left next to what is
    /// no journal: a folder, a CSV file, an archive): a path that cannot be
    /// opened for writing, or whose first line is complete and is not a
    /// journal line, with the errors reading it would give. A missing file,
    /// an empty one and an unfinished or empty first line are left to opening
    /// (it makes the file, or recovers a torn tail). Readers take no lock:
    /// a complete line is never changed.
    static func checkFirstLine(_ path: String) throws(JournalError) {
        let fd = Posix.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw JournalError.io("open", path)
        }
        defer { _ = Posix.close(fd) }
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(line.count)) }
            if n < 0, errno == EINTR { continue }
            // No newline (or a first line too long to be one): opening judges it, a torn first line it recovers.
            guard n > 0, line.count < 1 << 24 else { return }
            if let newline = chunk[..<n].firstIndex(of: 0x0A) {
                line += chunk[..<newline]
                break
            }
            line += chunk[..<n]
        }
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        do { _ = try EventLineCodec.decodeLine(line) } catch {
            throw JournalError.corrupt(line: 1, offset: error.offset, "\(error.code): \(error.detail)")
        }
    }

    /// Reads the file back into the chain (see ``ReadBack``).
    func load(recoverTail: Bool) throws(JournalError) {
        let read = try ReadBack.load(file, replica: false, recoverTail: recoverTail, foldsState: foldsState)
        chain = read.chain
        startedFromSnapshot = read.startedFromSnapshot
        if let recovered = read.recovered { recoveredTornTail = recovered }
    }

    /// After a failed write: the file cut back to `offset` (the last acknowledged byte) and the
    /// state read again from it. If either fails, the journal closes.
    func rollBack(to offset: Int) {
        guard file.cutBack(to: offset) else { return close() }
        do { try load(recoverTail: false) } catch { close() }
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
        guard file.isOpen else { throw file.closedError() }
        // A chain without its state is never saved: the next opening would start from an empty state.
        guard chain.head.seq > 0, chain.foldsState else { return }
        try ChainSnapshot.save(chain, size: file.end, journal: path)
    }

    /// Releases the lock and the file. Further calls fail with `journal_closed`.
    public func close() { close(discardingIfEmpty: false) }

    /// Releases the lock and the file; with `discardingIfEmpty`, first removes
    /// the journal if this ``Journal`` created it and nothing was written —
    /// so a run that failed leaves no empty journal behind. The file is
    /// removed while the lock is still held, and only while it is empty; the
    /// lock file itself is never removed (another process may be waiting on it).
    public func close(discardingIfEmpty: Bool) {
        notPipelining("close")
        file.close(discardingIfEmpty: discardingIfEmpty)
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
