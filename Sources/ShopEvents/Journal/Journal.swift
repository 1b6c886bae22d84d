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
/// ``execute(batch:)`` shares one `fsync` between many commands (group commit).
/// A rejected command writes nothing.
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

    /// What opening did with a torn last line.
    public struct TornTailRecovery: Hashable, Sendable {
        /// The number the torn line would have had.
        public var line: Int
        /// Where the torn bytes started; the journal now ends here.
        public var offset: Int
        public var length: Int
        /// The file holding the torn bytes.
        public var backupPath: String
    }

    public let path: String
    public let options: Options
    /// Set when opening truncated a torn tail.
    public private(set) var recoveredTornTail: TornTailRecovery?

    private var fd: Int32
    private var lockFD: Int32
    private var chain: JournalChain
    private var size: Int

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
    public static func open(path: String, options: Options = Options()) throws(JournalError) -> Journal {
        let lockFD = try WriterLock.acquire(journalPath: path, timeout: options.lockTimeout)
        let existed = access(path, F_OK) == 0
        let fd = Posix.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let error = JournalError.io("open", path)
            WriterLock.release(lockFD)
            throw error
        }
        // From here on the journal owns both descriptors: close() releases each exactly once.
        let journal = Journal(path: path, options: options, fd: fd, lockFD: lockFD, chain: JournalChain(), size: 0)
        do throws(JournalError) {
            if !existed { try syncDirectory(of: path) }
            try journal.load(recoverTail: true)
        } catch {
            journal.close()
            throw error
        }
        return journal
    }

    /// Releases the lock and the file. Further calls fail with `journal_closed`.
    public func close() {
        if fd >= 0 { _ = Posix.close(fd); fd = -1 }
        if lockFD >= 0 { WriterLock.release(lockFD); lockFD = -1 }
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
    /// left, and makes all of their events durable with one `write` and one
    /// `fsync` (group commit). Each command is accepted or rejected on its
    /// own. If the write fails, the file is cut back to where it was and the
    /// error is thrown: none of the batch is acknowledged.
    public func execute(batch requests: [CommandEnvelope]) throws(JournalError) -> [Result<CommandOutcome, RuleViolation>] {
        guard fd >= 0 else { throw JournalError(.closed, "the journal \(path) is closed; open it again") }
        let startSize = size
        var out = JSONWriter(capacity: 512 * max(requests.count, 1))
        var results: [Result<CommandOutcome, RuleViolation>] = []
        var retries: [(index: Int, record: CommandRecord, command: CommandID)] = []
        results.reserveCapacity(requests.count)
        for request in requests {
            let commandID = request.id ?? freshCommandID()
            if let record = chain.commands[commandID] {
                retries.append((results.count, record, commandID))
                results.append(.success(CommandOutcome(command: commandID, events: [], isRetry: true)))
                continue
            }
            do {
                let (events, at, actor) = try decide(request)
                var recorded: [RecordedEvent] = []
                recorded.reserveCapacity(events.count)
                for event in events {
                    var eventID: EventID = options.ids.make()
                    while chain.knows(eventID) { eventID = options.ids.make() }
                    let r = RecordedEvent(seq: chain.head.seq + 1, id: eventID, at: at, actor: actor,
                                          device: request.device ?? options.device, command: commandID,
                                          correlation: request.correlation, event: event, prev: chain.head.hash)
                    let lineStart = out.bytes.count
                    EventLineCodec.append(r, to: &out)
                    let hash = out.bytes.withUnsafeBytes { SHA256.hash(UnsafeRawBufferPointer(rebasing: $0[lineStart...])) }
                    out.bytes.append(0x0A)
                    chain.appended(r, lineHash: hash, offset: startSize + lineStart)
                    recorded.append(r)
                }
                results.append(.success(CommandOutcome(command: commandID, events: recorded, isRetry: false)))
            } catch {
                results.append(.failure(error))
            }
        }
        if !out.bytes.isEmpty { try writeDurably(out.bytes, at: startSize) }
        for retry in retries {
            let events = try readEvents(at: retry.record.offset, firstSeq: retry.record.firstSeq, count: retry.record.count)
            results[retry.index] = .success(CommandOutcome(command: retry.command, events: events, isRetry: true))
        }
        return results
    }

    /// A command id the journal has not seen: an injected generator may repeat
    /// ids after a reopen, and a repeated id would be taken for a retry.
    private func freshCommandID() -> CommandID {
        var id: CommandID = options.ids.make()
        while chain.commands[id] != nil { id = options.ids.make() }
        return id
    }

    /// The envelope rules (`expectedSeq`, `at`, actor), then the domain's decider.
    private func decide(_ request: CommandEnvelope) throws(RuleViolation) -> ([Event], Timestamp, String) {
        if let expected = request.expectedSeq, expected != chain.head.seq {
            throw RuleViolation(.conflict, "expectedSeq \(expected) but the journal is at seq \(chain.head.seq): read the new events and decide again", field: "expectedSeq")
        }
        let last = chain.lastAt ?? .earliest
        if let at = request.at, at < last {
            throw RuleViolation(.timeOutOfOrder, "at \(at) is earlier than the journal's last at \(last)", field: "at")
        }
        let at = request.at ?? max(options.clock.now(), last)
        let actor = request.actor ?? options.actor
        guard Limits.actorLength.contains(actor.count) else {
            throw RuleViolation(.invalidActor, "actor \(ShopState.quoted(actor)) must be 1 to 100 characters", field: "actor")
        }
        return (try ShopDecider.decide(request.command, chain.state), at, actor)
    }

    // MARK: Durable writing

    private func writeDurably(_ bytes: [UInt8], at offset: Int) throws(JournalError) {
        var failure: JournalError?
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = JournalError.io("write", path)
                    return
                }
                done += n
            }
        }
        if failure == nil, !Journal.fullSync(fd) { failure = JournalError.io("fsync", path) }
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

    static func syncDirectory(of path: String) throws(JournalError) {
        let directory = (path as NSString).deletingLastPathComponent
        let dirFD = Posix.open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard dirFD >= 0 else { throw JournalError.io("open directory of", path) }
        defer { _ = Posix.close(dirFD) }
        guard fullSync(dirFD) else { throw JournalError.io("fsync directory of", path) }
    }

    // MARK: Reading back

    /// Reads and checks every line; with `recoverTail`, backs up and cuts a torn last line.
    private func load(recoverTail: Bool) throws(JournalError) {
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw JournalError.io("seek", path) }
        var lines = JournalLines(fd: fd, path: path)
        var chain = JournalChain()
        try chain.accept(all: &lines)
        var size = lines.consumedOffset
        if let tail = lines.trailing {
            let number = chain.head.seq + 1
            guard tail.bytes.first == UInt8(ascii: "{") || tail.bytes.allSatisfy({ $0 == 0 }) else {
                throw JournalError.corrupt(line: number, offset: tail.offset, "the last line has no newline and does not start like a journal line; this is not a torn write")
            }
            guard recoverTail else {
                throw JournalError.corrupt(line: number, offset: tail.offset, "the last line has no newline")
            }
            let backup = try backUp(tail.bytes)
            guard ftruncate(fd, off_t(tail.offset)) == 0 else { throw JournalError.io("truncate", path) }
            guard Journal.fullSync(fd) else { throw JournalError.io("fsync", path) }
            recoveredTornTail = TornTailRecovery(line: number, offset: tail.offset, length: tail.bytes.count, backupPath: backup)
            size = tail.offset
        }
        self.chain = chain
        self.size = size
    }

    /// Copies torn bytes to `<journal>.torn-<UTC time>` and makes the copy durable.
    private func backUp(_ bytes: [UInt8]) throws(JournalError) -> String {
        let stamp = options.clock.now().description
            .replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
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

/// What executing one command gave: its events (from the first time, for a retry).
public struct CommandOutcome: Hashable, Sendable {
    public var command: CommandID
    public var events: [RecordedEvent]
    /// `true` when the command id was already in the journal and nothing was appended.
    public var isRetry: Bool

    /// The `seq`s of the events.
    public var seqs: [Int] { events.map(\.seq) }
}

/// The writer's exclusive advisory lock: `flock` on `<journal>.lock`, which
/// holds the pid of the process that has it.
enum WriterLock {
    static func acquire(journalPath: String, timeout: Double) throws(JournalError) -> Int32 {
        let lockPath = journalPath + ".lock"
        let fd = Posix.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.io("open lock file", lockPath) }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = JournalError.io("lock", lockPath)
                _ = Posix.close(fd)
                throw error
            }
            if Date() >= deadline {
                var holder = [UInt8](repeating: 0, count: 32)
                let n = pread(fd, &holder, 31, 0)
                let pid = n > 0 ? String(decoding: holder[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"
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
