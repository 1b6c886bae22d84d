import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The household's journal for an app: an actor that several tasks — and
/// several processes (an app, its widget, `shop-replay`) — can write at the
/// same time.
///
/// It does not hold the writer's lock while it is open. Each write takes the
/// lock (waiting for it suspends the task; it never blocks a thread of the
/// cooperative pool), first folds whatever other processes appended since
/// (checking their hash chain), then decides, writes, `fsync`s and lets the
/// lock go. ``events(after:)`` streams every event, then live ones: those this
/// store writes and those any other process appends.
///
/// ```swift
/// let store = try await ShopStore(path: "shop.ndjson", options: .init(actor: "ana"))
/// let milk = ItemID()
/// try await store.execute(.createItem(item: milk, name: "Milk", location: nil, details: .init(unitPrice: 119)))
/// print(await store.head)
/// for try await recorded in store.events(after: 0) {
///     print(recorded.seq, recorded.event.typeName)
/// }
/// ```
public actor ShopStore {
    /// The journal's path, made absolute when the store opened: a later change of
    /// the working directory changes nothing about which file it writes.
    public nonisolated let path: String
    public nonisolated let options: Journal.Options
    private let journal: SharedJournal

    /// Opens (or creates) the journal at `path`, starting from its chain
    /// snapshot (`<journal>.chain`, see ``saveSnapshot()``) when that is good.
    /// Taking the lock for the first read (a torn tail left by a crash is
    /// recovered then) suspends while another process writes; after
    /// `options.lockTimeout` seconds it fails with `journal_locked`.
    public init(path: String, options: Journal.Options = .init()) async throws {
        let path = JournalPath.absolute(path)
        self.path = path
        self.options = options
        let lockFD = try WriterLock.openFile(journalPath: path)
        do {
            try await WriterLock.waitFor(path: path, timeout: options.lockTimeout) { () throws(JournalError) in
                try WriterLock.tryLock(lockFD, journalPath: path)
            }
        } catch {
            _ = Posix.close(lockFD)
            throw error
        }
        // From here the journal owns the lock file's descriptor, on failure too.
        journal = try SharedJournal.open(path: path, options: options, lockFD: lockFD)
    }

    /// The household as of the last event this store has read or written.
    public var state: ShopState { journal.state }
    /// The audit head of what this store has read or written.
    public var head: JournalHead { journal.head }
    /// Set when opening cut a torn tail or an incomplete command.
    public var recoveredTornTail: Journal.TornTailRecovery? { journal.recoveredTornTail }

    /// Executes one command: its events are durable when this returns.
    /// Throws ``RuleViolation`` if a rule rejects it (nothing is written) or ``JournalError``.
    @discardableResult
    public func execute(_ request: CommandEnvelope) async throws -> CommandOutcome {
        try await execute(batch: [request])[0].get()
    }

    /// Executes one command with the default actor and a fresh command id.
    @discardableResult
    public func execute(_ command: Command) async throws -> CommandOutcome {
        try await execute(CommandEnvelope(command))
    }

    /// Executes commands in order, each against the state the ones before it
    /// left (other processes' events folded first), with one `write` and one
    /// `fsync` for all of them.
    public func execute(batch requests: [CommandEnvelope]) async throws -> [Result<CommandOutcome, RuleViolation>] {
        try await withWriterLock { journal throws(JournalError) in try journal.execute(batch: requests) }
    }

    /// Folds what other processes appended, without writing anything.
    public func refresh() async throws {
        try await withWriterLock { _ throws(JournalError) in }
    }

    /// Saves the writer's chain to `<journal>.chain`, so that opening a store
    /// (or a `Journal`) reads only what follows it. Call it now and then, say
    /// when the app goes to the background.
    public func saveSnapshot() throws {
        try journal.saveSnapshot()
    }

    /// The seq of the chain snapshot opening started from, if one was good.
    public var startedFromSnapshot: Int? { journal.startedFromSnapshot }

    /// Closes the journal; further calls fail with `journal_closed`.
    public func close() {
        journal.close()
    }

    /// Takes the lock (suspending while another writer has it), catches up,
    /// runs `body`, and always lets the lock go.
    private func withWriterLock<T>(_ body: (Journal) throws(JournalError) -> T) async throws -> T {
        let journal = self.journal
        try await WriterLock.waitFor(path: path, timeout: options.lockTimeout) { () throws(JournalError) in try journal.lockForWriting() }
        defer { journal.unlockAfterWriting() }
        try journal.catchUp()
        return try body(journal.journal)
    }

    /// Every event after `seq`, in order, then live: the events this store
    /// writes and those any other process appends, each exactly once, as soon
    /// as its command is complete on disk. It watches the file — inotify on
    /// Linux, a dispatch source on Apple platforms, so a change wakes it at
    /// once — and checks once a second besides; where neither is available it
    /// checks every 250 ms. It reads without the lock, on a
    /// thread of its own (never one of the cooperative pool), and ends — the
    /// thread stopped, every descriptor closed — when the consuming task is
    /// cancelled or stops iterating. A damaged journal ends it with the error.
    public nonisolated func events(after seq: Int) -> AsyncThrowingStream<RecordedEvent, any Error> {
        JournalFollower.events(path: path, after: seq)
    }
}

/// Every event of a journal after `seq`, then live, on a thread of its own: ``ShopStore/events(after:)`` and ``ReplicaStore/events(after:)``.
enum JournalFollower {
    static func events(path: String, after seq: Int) -> AsyncThrowingStream<RecordedEvent, any Error> {
        AsyncThrowingStream { continuation in
            let watch: FileWatch
            do { watch = try FileWatch(path: path) } catch {
                continuation.finish(throwing: error)
                return
            }
            continuation.onTermination = { _ in watch.stop() }
            let thread = Thread {
                do {
                    var position = JournalPosition.start
                    var first = true
                    while !watch.isStopped {
                        if FileManager.default.fileExists(atPath: path) {
                            let reader = first ? try JournalReader(path: path, from: seq + 1)
                                               : try JournalReader(path: path, resumingAt: position)
                            while let recorded = try reader.next() {
                                if recorded.seq > seq { continuation.yield(recorded) }
                            }
                            position = reader.position
                            first = false
                        }
                        watch.waitForChange()
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                watch.close()
            }
            thread.name = "ShopEvents.events \(path)"
            thread.start()
        }
    }
}

extension WriterLock {
    /// Tries `attempt` until it takes the lock, suspending between tries
    /// (1 ms, doubling to 20 ms) — never blocking a thread of the cooperative
    /// pool; `journal_locked` after `timeout` seconds. It runs on the
    /// caller's actor (`isolation`), where `attempt` may touch its state.
    static func waitFor(path: String, timeout: Double, isolation: isolated (any Actor)? = #isolation,
                        _ attempt: () throws(JournalError) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        var pause: UInt64 = 1_000_000
        while try !attempt() {
            guard Date() < deadline else {
                throw JournalError(.locked, "\(path) is being written by another process (lock \(path).lock); waited \(timeout) s — try again")
            }
            try await Task.sleep(nanoseconds: pause)
            pause = min(pause * 2, 20_000_000)
        }
    }

    /// The lock of `journalPath`, taken by suspending (see ``waitFor(path:timeout:isolation:_:)``): its descriptor, to ``release(_:)``.
    static func acquire(journalPath: String, timeout: Double, isolation: isolated (any Actor)? = #isolation) async throws -> Int32 {
        let fd = try openFile(journalPath: journalPath)
        do {
            try await waitFor(path: journalPath, timeout: timeout) { () throws(JournalError) in try tryLock(fd, journalPath: journalPath) }
        } catch {
            _ = Posix.close(fd)
            throw error
        }
        return fd
    }
}
