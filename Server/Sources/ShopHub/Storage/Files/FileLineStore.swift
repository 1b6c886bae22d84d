import Foundation
import ShopEvents
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``FileHubStorage``'s households as a line store, for ``HubCore``: each household's journal file
/// (`<folder>/<H>.ndjson`, docs/JOURNAL.md), read and appended through the core's ``HubJournalFile``.
///
/// - head: the last whole line, read from the end of the file without the lock (as the stdio hub reads it);
/// - lines after a seq: a pull's page read without the lock, from where the last pull ended; unpaged
///   (to fold), every line the writer's journal has checked, under the writer's lock;
/// - records: the writer's journal's command index (where each command's lines are), its type read back;
/// - append-if-head-is: under the writer's lock (`flock` on `<H>.ndjson.lock`, which every writer of the
///   file takes: a `shop-replay` process writing the same journal is excluded), the lines other writers
///   appended checked and folded, the head compared, the lines written and `fsync`ed before it reports;
/// - a household's lock: the writer's lock, held across the body (and, within this process, the
///   household's turn: ``HouseholdTurns``).
///
/// Each household's file is used on a queue of its own, never on Swift's cooperative pool (a lock may
/// be waited for, and every append `fsync`s). Nothing here deletes or replaces a file. A damaged journal
/// is refused naming its line and byte offset: ``Unusable``, which the file hub answers as the stdio hub
/// does (an `error` answer). Tokens are not checked here: the file hub's routes check them.
///
/// ```swift
/// func head(of household: HouseholdID, in storage: FileHubStorage) async throws -> JournalHead {
///     try await storage.core.store.head(of: household, token: nil)
/// }
/// ```
public final class FileLineStore: HubLineStore {
    /// The folder of the households' journals.
    let folder: String
    let options: Journal.Options
    /// Opened for the operator's commands beside a serving hub: no file is made, no lock taken.
    let readOnly: Bool
    /// The households recorded (``know(_:)``): the store has a journal for these only.
    private let known = Mutex<Set<HouseholdID>>([])
    private let lanes = Mutex<[HouseholdID: Lane]>([:])
    private let turns = HouseholdTurns()

    /// A journal the hub cannot use now (damaged, locked by another writer past the timeout, a failed
    /// write): the code and message the stdio hub answers with.
    struct Unusable: Error {
        var failure: SyncFailure
    }

    init(folder: String, options: Journal.Options, readOnly: Bool = false) {
        self.folder = folder
        self.options = options
        self.readOnly = readOnly
    }

    /// Records that the household exists (its journal is made at its first use).
    func know(_ household: HouseholdID) {
        _ = known.withLock { $0.insert(household) }
    }

    func path(of household: HouseholdID) -> String { folder + "/\(household).ndjson" }

    // MARK: The line store

    public func head(of household: HouseholdID, token: String?) async throws -> JournalHead {
        try await lane(household).run { try $0.householdAndHead().1 }
    }

    /// With a `limit`: the lines a pull's page of `limit - 1` lines takes, and the line after them
    /// if it is full (``HubLines/toEnd`` false), read without the lock. Without: every line after
    /// `after`, checked, under the writer's lock.
    public func lines(of household: HouseholdID, after: Int, limit: Int?, token: String?) async throws -> HubLines {
        let lane = try lane(household)
        guard let limit else {
            return try await turns.run(household) { try await lane.locked { try $0.lockedLines(after: after) } }.hubLines(from: after)
        }
        return try await lane.run { try $0.lines(after: after, page: limit - 1, hashing: true) }.hubLines(from: after)
    }

    public func records(of household: HouseholdID, commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord] {
        let lane = try lane(household)
        return try await turns.run(household) { try await lane.locked { try $0.records(of: commands) } }
    }

    /// Each household's part in turn, each under its writer's lock.
    public func append(_ appends: [HubAppend]) async throws -> [HouseholdID: HubAppend.Outcome] {
        var outcomes: [HouseholdID: HubAppend.Outcome] = [:]
        for part in appends {
            guard let lane = existingLane(part.household) else {
                outcomes[part.household] = .unknown
                continue
            }
            outcomes[part.household] = try await turns.run(part.household) { try await lane.locked { try Self.append(part, to: $0) } }
        }
        return outcomes
    }

    public func withLock<T: Sendable>(_ household: HouseholdID, _ body: @Sendable (any HubLockedHousehold) async throws -> T) async throws -> T {
        let lane = try lane(household)
        guard !readOnly else { throw HubError.unavailable("\(folder) was opened to read only") }
        return try await turns.run(household) {
            try await lane.run { try $0.lock() }
            do {
                let result = try await body(Locked(lane: lane))
                await lane.unlock()
                return result
            } catch {
                await lane.unlock()
                throw error
            }
        }
    }

    /// The journal's bytes as they are in the file (empty before the first push), read without the lock.
    func contents(of household: HouseholdID) async throws -> [UInt8] {
        try await lane(household).run { file in
            guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
            return Array(data)
        }
    }

    static func append(_ part: HubAppend, to file: HubJournalFile) throws -> HubAppend.Outcome {
        switch try file.append(part.decided.lines, expected: part.expected, checked: part.checked) {
        case .written: return .written
        case let .headMoved(head): return .headMoved(head)
        case .recorded: return .recorded
        // Decided again (under the lock, with new ids): an id the journal holds is never written twice.
        case .eventIDTaken: return .headMoved(file.head)
        }
    }

    /// One household under its writer's lock: read and appended on its queue, without taking the lock again.
    struct Locked: HubLockedHousehold {
        let lane: Lane

        func lines(after: Int) async throws -> HubLines {
            try await lane.run { try $0.lockedLines(after: after) }.hubLines(from: after)
        }

        func records(commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord] {
            try await lane.run { try $0.records(of: commands) }
        }

        /// Every token: the file hub's routes check them (this store keeps no devices).
        func liveTokens(_ tokens: [String]) async throws -> Set<String> { Set(tokens) }

        func append(_ append: HubAppend) async throws -> HubAppend.Outcome {
            try await lane.run { try FileLineStore.append(append, to: $0) }
        }
    }

    // MARK: Lanes

    func existingLane(_ household: HouseholdID) -> Lane? {
        guard known.withLock({ $0.contains(household) }) else { return nil }
        return lanes.withLock { lanes in
            if let lane = lanes[household] { return lane }
            let lane = Lane(household: household, file: HubJournalFile(path: path(of: household), options: options, keepsState: false), makesPrivate: !readOnly)
            lanes[household] = lane
            return lane
        }
    }

    private func lane(_ household: HouseholdID) throws -> Lane {
        guard let lane = existingLane(household) else { throw HubError.unknownHousehold(household.description) }
        return lane
    }

    /// A household's journal and the queue it is used on.
    final class Lane: @unchecked Sendable {
        // @unchecked: `file` and `made` are used only on `queue`, one block at a time.
        let queue: DispatchQueue
        let file: HubJournalFile
        let makesPrivate: Bool
        private var made = false

        init(household: HouseholdID, file: HubJournalFile, makesPrivate: Bool) {
            queue = DispatchQueue(label: "shop-hub.household.\(household)")
            self.file = file
            self.makesPrivate = makesPrivate
        }

        /// `body` on the queue, the journal and its lock file made first (0600); a journal error as ``Unusable``.
        func run<T: Sendable>(_ body: @escaping @Sendable (HubJournalFile) throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { [self] in
                    continuation.resume(with: Result {
                        if makesPrivate, !made {
                            try FileLineStore.makePrivate(file.path)
                            made = true
                        }
                        do { return try body(file) } catch let error as HubError { throw error } catch let error as any ShopError {
                            throw Unusable(failure: SyncFailure(code: error.code, message: error.message))
                        } catch {
                            throw Unusable(failure: SyncFailure(code: "io_error", message: "\(error)"))
                        }
                    })
                }
            }
        }

        /// `body` under the writer's lock, taken and let go on the queue.
        func locked<T: Sendable>(_ body: @escaping @Sendable (HubJournalFile) throws -> T) async throws -> T {
            guard makesPrivate else { throw HubError.unavailable("\(file.path) was opened to read only") }
            return try await run { file in
                try file.lock()
                defer { file.unlock() }
                return try body(file)
            }
        }

        func unlock() async {
            _ = try? await run { $0.unlock() }
        }
    }

    /// A household's journal and its writer's lock, before the journal opens them: made 0600
    /// (the new journal's folder synced), or set so if an older hub made them.
    static func makePrivate(_ journal: String) throws {
        for path in [journal, journal + ".lock"] {
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
                let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_CLOEXEC)
                defer { if folder >= 0 { close(folder) } }
                guard folder >= 0, fsync(folder) == 0 else { throw HubError.unavailable("cannot sync the folder of \(path)") }
            } else if errno != EEXIST || chmod(path, 0o600) != 0 {
                throw HubError.unavailable("cannot make \(path) the hub's alone (mode 0600): \(String(cString: strerror(errno)))")
            }
        }
    }
}

extension HubJournalFile.Lines {
    /// As a ``HubLines``: each line with its seq (after `after`) and hash.
    func hubLines(from after: Int) -> HubLines {
        var found = HubLines(after: self.after, lines: [], toEnd: toEnd)
        found.lines.reserveCapacity(lines.count)
        for (index, bytes) in lines.enumerated() {
            found.lines.append(HubLines.Line(seq: after + index + 1, bytes: bytes, hash: hashes[index]))
        }
        return found
    }
}
