import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `<journal>.sync` holds: the hub to sync with and this device's name.
/// Its presence makes the journal a replica.
public struct SyncSettings: Hashable, Sendable, Codable {
    /// A command run by `/bin/sh -c` that speaks the protocol on its standard
    /// input and output (`ssh host shop-replay hub --journal …`), or a hosted
    /// hub's household URL (`https://HOST/v1/households/H`).
    public var hub: String
    public var device: String
    /// The actor a hosted hub's token is, as the hub said (a join's answer, or
    /// its hello for a token given): the hub takes commands by it alone, so a
    /// tool takes it as its default.
    public var actor: String?

    public init(hub: String, device: String, actor: String? = nil) { self.hub = hub; self.device = device; self.actor = actor }

    /// Reads `<journal>.sync`.
    public static func load(journal path: String) throws(JournalError) -> SyncSettings {
        let file = path + ".sync"
        guard let data = FileManager.default.contents(atPath: file) else {
            throw JournalError(.notFound, "\(file) is missing: \(path) is not a replica: clone one from a hub first")
        }
        guard case let .object(pairs)? = try? JSONValue.parse(Array(data)),
              let hub = pairs.first(where: { $0.0 == "hub" })?.1.stringValue,
              let device = pairs.first(where: { $0.0 == "device" })?.1.stringValue else {
            throw JournalError(.corruptLine, "\(file) is not {\"hub\": COMMAND, \"device\": NAME}")
        }
        return SyncSettings(hub: hub, device: device, actor: pairs.first(where: { $0.0 == "actor" })?.1.stringValue)
    }

    /// The actor the replica at `journal` was enrolled as by a hosted hub, if it is a replica
    /// and was: an app or a tool takes it as the default writer of its commands.
    public static func enrolledActor(journal path: String) -> String? {
        guard Replica.isReplica(path) else { return nil }
        return (try? load(journal: path))?.actor
    }

    /// The household a hosted hub's replica is of: the one its address
    /// names (`https://HOST/v1/households/H`); `nil` for a hub reached by a command.
    public var household: HouseholdID? { URL(string: hub).flatMap(HubEnrolment.household(of:)) }

    var json: JSONValue { .object([("hub", .string(hub)), ("device", .string(device))] + (actor.map { [("actor", .string($0))] } ?? [])) }
}

/// A device's replica of the hub's journal, with the commands made on this
/// device that the hub has not taken yet (docs/SYNC.md, "On a replica").
///
/// Its files, for a journal `J`: `J` (a byte-identical prefix of the hub's
/// journal, written only by sync), `J.outbox` (pending commands, one JSON
/// command a line), `J.rejected` (what the hub refused, and why) and `J.sync`.
/// ``execute(_:)`` decides a command against the optimistic state — the
/// replica, then the outbox, folded in order — and appends it, fully
/// resolved, to the outbox with `fsync`; ``SyncClient`` sends it.
///
/// ```swift
/// let replica = try Replica(path: "phone.ndjson", options: .init(actor: "cleo"))
/// let outcome = try replica.execute(CommandEnvelope(.addItemToList(list: weekly, item: milk, quantity: 2)))
/// print(outcome.isPending, replica.pending.count)       // true, 1: `SyncClient.sync` sends it
/// ```
public final class Replica {
    public let path: String
    public let settings: SyncSettings
    public let options: Journal.Options
    /// The replica's own head: the hub's history as far as it was pulled.
    public private(set) var replicaHead = JournalHead.empty
    /// Commands in the outbox, in order (those the replica already holds are left out).
    public private(set) var pending: [CommandEnvelope] = []
    /// The optimistic state: the replica, then the outbox commands that still decide.
    public private(set) var state = ShopState.compact
    /// The outbox commands' events as they would be recorded, numbered on from ``replicaHead``.
    public private(set) var pendingEvents: [RecordedEvent] = []
    /// The first line a newer version wrote, if the replica has one: the
    /// replica's state stops before it, and commands are refused until the app is updated.
    public private(set) var newerLine: NewerLineFound?

    /// ``SyncSettings/household``, read once: `apply` asks ``household`` for every line.
    private let hubHousehold: HouseholdID?
    private var replicaState = ShopState.compact
    private var replicaLastAt: Timestamp?
    /// The commands of the replica, each with its type (that of its last event), for telling a retry from an id reused.
    private var replicaCommands: [CommandID: CommandType] = [:]
    private var position = JournalPosition.start
    private var end = JournalEnd(seq: 0, lastAt: nil)
    /// Every command of the outbox as last read, and how far it was read.
    private var outbox: [OutboxEntry] = []
    private var outboxRead = Outbox.ReadEnd()

    /// The household this replica is of: its optimistic state's, or before
    /// there is one, the household its hosted hub holds it under (a new
    /// household's, whose first command is `CreateHousehold` with this id).
    /// Decode a `CreateHousehold` that names none with it
    /// (`CommandCodec.decode(_:ids:household:)`), so the hub takes it.
    ///
    /// ```swift
    /// let replica = try Replica(path: "phone.ndjson", options: .init(actor: "ana"))
    /// if let household = replica.household, replica.state.household == nil {
    ///     try replica.execute(.createHousehold(household: household, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
    /// }
    /// ```
    public var household: HouseholdID? { state.household?.id ?? hubHousehold }

    /// Whether `path` is a replica: `<path>.sync` is there.
    public static func isReplica(_ path: String) -> Bool { JournalPath.isReplica(path) }

    /// Reads the replica and its outbox. Nothing is locked or written.
    public init(path: String, options: Journal.Options = .init()) throws {
        let path = JournalPath.absolute(path)
        self.path = path
        self.options = options
        settings = try SyncSettings.load(journal: path)
        hubHousehold = settings.household
        try refresh()
    }

    /// Reads what sync appended to the replica since, and what was appended
    /// to the outbox since (all of it again if sync rewrote it). Folds again
    /// from the replica only when either changed under it; otherwise only the
    /// new outbox commands: executing many commands costs each one, not the outbox.
    public func refresh() throws {
        var replicaChanged = false
        if access(path, F_OK) == 0 {
            let reader = try JournalReader(path: path, resumingAt: position)
            while let recorded = try reader.next() {
                replicaState.apply(recorded)
                replicaCommands[recorded.command] = CommandType(endingWith: recorded.event.kind)
                replicaLastAt = recorded.at
                replicaChanged = true
            }
            position = reader.position
            newerLine = reader.newerLine
            if replicaChanged || replicaHead.seq != position.seq { replicaHead = try reader.head() }
        }
        let read = try Outbox.read(journal: path, after: outboxRead)
        if read.rewritten || replicaChanged {
            outbox = read.rewritten ? read.commands : outbox + read.commands
            outboxRead = read.end
            let left = outbox.filter { replicaCommands[$0.id] == nil }
            pending = left.map(\.request)
            state = replicaState
            end = JournalEnd(seq: replicaHead.seq, lastAt: replicaLastAt)
            pendingEvents = []
            fold(left)
        } else if !read.commands.isEmpty {
            outbox += read.commands
            outboxRead = read.end
            let new = read.commands.filter { replicaCommands[$0.id] == nil }
            pending += new.map(\.request)
            fold(new)
        }
    }

    /// Whether the replica holds the command: sync has brought it back from the hub.
    func holds(_ command: CommandID) -> Bool { replicaCommands[command] != nil }

    /// Folds outbox commands on top of the optimistic state, each that still decides.
    private func fold(_ entries: [OutboxEntry]) {
        for entry in entries {
            let request = entry.request
            var again = request
            again.at = nil
            again.expectedSeq = nil
            let now = max(request.at ?? .earliest, end.lastAt ?? .earliest)
            // One that no longer decides (another device got there first) stays in the outbox for the hub to judge.
            guard let decided = try? ShopDecider.decide(again, state, after: end, now: now, defaultActor: request.actor ?? options.actor) else { continue }
            // Not yet a line: its place and `prev` are the hub's to give (the seqs are those it would take next).
            let recorded = CommandLines.records(of: decided, command: entry.id, device: entry.request.device, correlation: entry.request.correlation,
                                                after: end.seq, prev: .zero) { options.ids.make() }
            for event in recorded { state.apply(event) }
            pendingEvents += recorded
            end = JournalEnd(seq: end.seq + recorded.count, lastAt: decided.at)
        }
    }

    /// Decides the command against the optimistic state and, if it is
    /// accepted, appends it to the outbox — with its id, actor, device, the
    /// device's time, and for a purchase its quantity, price, location and
    /// `purchasedAt` — and `fsync`s. Rejected, nothing is written. The
    /// outcome ``CommandOutcome/isPending``.
    @discardableResult
    public func execute(_ request: CommandEnvelope) throws -> CommandOutcome {
        let lock = try WriterLock.acquire(journalPath: Outbox.path(journal: path), timeout: options.lockTimeout)
        defer { WriterLock.release(lock) }
        return try executeHoldingOutboxLock(request)
    }

    /// ``execute(_:)`` with the outbox's lock held by the caller.
    func executeHoldingOutboxLock(_ request: CommandEnvelope) throws -> CommandOutcome {
        try refresh()
        if let newerLine { throw newerLine.error }
        var resolved = request
        var id = request.id ?? options.ids.make()
        while request.id == nil, replicaCommands[id] != nil || pending.contains(where: { $0.id == id }) { id = options.ids.make() }
        if let first = replicaCommands[id] ?? pending.first(where: { $0.id == id })?.command.kind {
            // A retry of a command this device already made: answered from where it is; another command under its id is refused.
            try ShopDecider.requireRetry(request.command.kind, id: id, first: first)
            let events = pendingEvents.filter { $0.command == id }
            return CommandOutcome(command: id, events: events, isRetry: true, isPending: replicaCommands[id] == nil)
        }
        resolved.id = id
        resolved.actor = request.actor ?? options.actor
        resolved.device = request.device ?? options.device ?? settings.device
        let decided = try ShopDecider.decide(resolved, state, after: end, now: options.clock.now(), defaultActor: options.actor)
        resolved.at = decided.at
        resolved.expectedSeq = nil
        if case let .purchaseItem(purchase, item, list, _, _, _, purchasedAt, _) = resolved.command,
           case let .itemPurchased(_, _, _, quantity, unitPrice, location, _, store)? = decided.events.first {
            resolved.command = .purchaseItem(purchase: purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice,
                                             location: location, purchasedAt: purchasedAt ?? decided.at, store: store)
        }
        let entry = OutboxEntry(id: id, request: resolved)
        outboxRead = try Outbox.append(entry, journal: path)
        outbox.append(entry)
        pending.append(resolved)
        // Folded exactly as the outbox is folded when read again: the resolved command, decided anew.
        let before = pendingEvents.count
        fold([entry])
        return CommandOutcome(command: id, events: Array(pendingEvents[before...]), isRetry: false, isPending: true)
    }

    /// Whether a command with this id is in the replica or its outbox: executing it again is a retry.
    func holds(command id: CommandID) -> Bool {
        replicaCommands[id] != nil || pending.contains { $0.id == id }
    }

    /// Executes one command with the default actor and a fresh command id.
    @discardableResult
    public func execute(_ command: Command) throws -> CommandOutcome { try execute(CommandEnvelope(command)) }
}

/// A command of the outbox. It always has its id: a line without one is
/// refused when the outbox is read.
struct OutboxEntry: Hashable, Sendable {
    let id: CommandID
    var request: CommandEnvelope

    /// `request` with `id` written into it, as the outbox keeps it.
    init(id: CommandID, request: CommandEnvelope) {
        self.id = id
        self.request = request
        self.request.id = id
    }
}

/// `<journal>.outbox`: one JSON command a line. Appended with `fsync` under
/// its own lock (`<journal>.outbox.lock`); rewritten only by sync, atomically.
enum Outbox {
    static func path(journal: String) -> String { journal + ".outbox" }

    /// How far the outbox was read: the file (device, inode) and the offset after its last whole line.
    struct ReadEnd: Hashable {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        var offset = 0
    }

    /// The commands, in order. A last line without its newline was never
    /// acknowledged (its append did not finish) and is not read; any other
    /// line that is not a command is damage, named.
    static func read(journal: String) throws -> [OutboxEntry] {
        try read(journal: journal, after: ReadEnd()).commands
    }

    /// The commands after `after` — or all of them, `rewritten`, when the
    /// file is another one than was read (sync replaced it) or shorter.
    static func read(journal: String, after: ReadEnd) throws -> (commands: [OutboxEntry], end: ReadEnd, rewritten: Bool) {
        let file = path(journal: journal)
        let fd = Posix.open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            guard errno == ENOENT else { throw JournalError.io("open", file) }
            return ([], ReadEnd(), after != ReadEnd())
        }
        defer { _ = Posix.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.io("stat", file) }
        let same = UInt64(info.st_dev) == after.device && UInt64(info.st_ino) == after.inode && Int(info.st_size) >= after.offset
        let start = same ? after.offset : 0
        let size = Int(info.st_size) - start
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.nonEmptyBase + done, size - done, off_t(start + done)) }   // done < size: not empty
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        var commands: [OutboxEntry] = []
        var offset = 0
        while let newline = bytes[offset..<done].firstIndex(of: 0x0A) {
            let line = Array(bytes[offset..<newline])
            do {
                let command = try CommandCodec.decode(line, ids: .random)
                guard let id = command.id else { throw CodecError(.missingField, "the command has no id", offset: 0) }
                commands.append(OutboxEntry(id: id, request: command))
            } catch let error as CodecError {
                throw JournalError(.corruptLine, "\(file) at byte \(start + offset) holds no command: \(error.code): \(error.message); the outbox was left as it is")
            }
            offset = newline + 1
        }
        let end = ReadEnd(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), offset: start + offset)
        return (commands, end, !same)
    }

    /// Appends one command and `fsync`s; returns where the outbox now ends
    /// (for a reader that had read all of it, under the outbox's lock).
    @discardableResult
    static func append(_ entry: OutboxEntry, journal: String) throws(JournalError) -> ReadEnd {
        var line = CommandCodec.encode(entry.request)
        line.append(0x0A)
        let (fileID, end) = try appendLines(line, to: path(journal: journal))
        return ReadEnd(device: fileID.device, inode: fileID.inode, offset: end)
    }

    /// Appends whole lines to `file` and `fsync`s; a torn last line a crash
    /// left (an append never acknowledged) is cut first.
    @discardableResult
    static func appendLines(_ lines: [UInt8], to file: String) throws(JournalError) -> (file: (device: UInt64, inode: UInt64), end: Int) {
        let fd = Posix.open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.io("open", file) }
        defer { _ = Posix.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.io("stat", file) }
        var size = Int(info.st_size)
        if size > 0 {
            var last: UInt8 = 0
            guard pread(fd, &last, 1, off_t(size - 1)) == 1 else { throw JournalError.io("read", file) }
            if last != 0x0A {
                let whole = try wholeLinesLength(fd: fd, size: size, file: file)
                guard ftruncate(fd, off_t(whole)) == 0 else { throw JournalError.io("truncate", file) }
                size = whole
            }
        }
        let written = lines.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(size)) }
        guard written == lines.count, DurableFile.sync(fd) else {
            _ = ftruncate(fd, off_t(size))
            throw JournalError.io("write", file)
        }
        if size == 0 { try DurableFile.syncDirectory(of: file) }
        return ((UInt64(info.st_dev), UInt64(info.st_ino)), size + lines.count)
    }

    private static func wholeLinesLength(fd: Int32, size: Int, file: String) throws(JournalError) -> Int {
        var bytes = [UInt8](repeating: 0, count: size)
        guard bytes.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, size, 0) }) == size else { throw JournalError.io("read", file) }
        return (bytes.lastIndex(of: 0x0A) ?? -1) + 1
    }

    /// Replaces the outbox with `commands`: a temporary file, `fsync`, rename, `fsync` of the folder.
    static func rewrite(_ entries: [OutboxEntry], journal: String) throws(JournalError) {
        let file = path(journal: journal)
        var bytes: [UInt8] = []
        for entry in entries {
            bytes += CommandCodec.encode(entry.request)
            bytes.append(0x0A)
        }
        try DurableFile.writeAtomically(bytes, to: file)
    }
}
