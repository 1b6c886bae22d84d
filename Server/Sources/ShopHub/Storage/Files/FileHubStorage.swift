import Foundation
import ShopEvents
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded default storage: a folder, nothing to install.
///
/// - `DIR/households/<H>.ndjson`: each household's journal (docs/JOURNAL.md),
///   a line store (``FileLineStore``) under the hub's one driver (``HubCore``),
///   as PostgreSQL and the memory store are: the rules, the writer's lock, one
///   `fsync` a push, a repeated command id answered from its record.
/// - `DIR/hub.ndjson`: the hub's own records, appended and `fsync`ed before a
///   request is answered: households, devices (with the SHA-256 of their
///   tokens), revocations (and why: a member removed), invites (the SHA-256 of
///   their codes), cancelled invites, joins, and
///   when a device was last seen (at most once a minute a device).
/// - `DIR/hub.lock`: held while serving; one `shop-hub` process a folder.
/// - `DIR/hub.key`: the secret the per-address limits key their hash of a
///   client's address with (``AddressKey``), made at random the first time.
///
/// Only the hub's user may read any of it: the folders are 0700 and the files
/// 0600, made so and, in a folder an older hub made, set so at start (a
/// household's journal when its household is first used).
///
/// Each household's journal is used on a queue of its own, so that one
/// household's `fsync` never waits for another's, and its pushes are decided
/// one after the other; the records run on one more queue. No file is read or
/// written on Swift's cooperative pool.
///
/// ```swift
/// let storage = try FileHubStorage(directory: "shop-hub-data")
/// print(try await storage.households().count)
/// ```
public final class FileHubStorage: HubStorage, @unchecked Sendable {
    // @unchecked: `records` and `recordsFD` are used only on `recordsQueue` (and by `init`).
    public let directory: String
    private let clock: Clock
    private let recordsQueue = DispatchQueue(label: "shop-hub.records")
    private var records = Records()
    private var recordsFD: Int32 = -1
    /// The households' journals, and the hub's rules over them.
    let lineStore: FileLineStore
    public let core: HubCore<FileLineStore>
    /// Each household's pushes, one at a time (each is decided on the state the one before left).
    private let pushTurns = HouseholdTurns()
    private var lockFD: Int32 = -1
    private var recordsPath: String { directory + "/hub.ndjson" }
    private let readOnly: Bool
    /// What a household's creation keeps of the client's address is keyed with (nil read-only, without `hub.key`).
    private var addressKey: AddressKey?

    /// Opens (or makes) the folder, takes its lock and reads the records.
    /// Refused if another process serves the folder, or if the records are
    /// damaged anywhere but a torn last line (a write a crash cut short,
    /// never acknowledged: it is cut, and kept in `hub.ndjson.torn-<time>`).
    public init(directory: String, clock: Clock = .system, ids: IDGenerator = .random) throws {
        self.directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        self.clock = clock
        readOnly = false
        (lineStore, core) = Self.journals(self.directory, clock: clock, ids: ids, readOnly: false)
        try FileManager.default.createDirectory(atPath: self.directory + "/households", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        for folder in [self.directory, self.directory + "/households"] where chmod(folder, 0o700) != 0 {
            throw HubError.unavailable("cannot make \(folder) the hub's alone (mode 0700): \(String(cString: strerror(errno)))")
        }
        lockFD = open(self.directory + "/hub.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else { throw HubError.unavailable("cannot open \(self.directory)/hub.lock: \(String(cString: strerror(errno)))") }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            close(lockFD)
            throw HubError.unavailable("another shop-hub serves \(self.directory) (its hub.lock is held): one process a data folder")
        }
        _ = fchmod(lockFD, 0o600)
        try loadRecords()
        addressKey = try Self.loadAddressKey(self.directory + "/hub.key", making: true)
    }

    /// The folder as it is, for the operator's commands, beside a serving
    /// hub: no lock taken, nothing written (a torn last record is passed over).
    public init(readingOnly directory: String) throws {
        self.directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        clock = .system
        readOnly = true
        (lineStore, core) = Self.journals(self.directory, clock: clock, ids: .random, readOnly: true)
        guard FileManager.default.fileExists(atPath: self.directory + "/hub.ndjson") else {
            throw HubError.unavailable("\(self.directory) is not a hub's data folder (it has no hub.ndjson)")
        }
        try loadRecords()
        addressKey = try Self.loadAddressKey(self.directory + "/hub.key", making: false)
    }

    /// The households' line store, and the driver over it. An empty journal's first command creates
    /// its household, and no other (`wrong_household`).
    private static func journals(_ directory: String, clock: Clock, ids: IDGenerator, readOnly: Bool) -> (FileLineStore, HubCore<FileLineStore>) {
        let store = FileLineStore(folder: directory + "/households", options: Journal.Options(clock: clock, ids: ids, actor: "shop-hub", device: nil),
                                  readOnly: readOnly)
        return (store, HubCore(store: store, clock: clock, ids: ids))
    }

    /// The key in `path` (64 hex digits); made at random and written durably (0600) if `making` and there is none.
    private static func loadAddressKey(_ path: String, making: Bool) throws -> AddressKey? {
        if let data = FileManager.default.contents(atPath: path) {
            guard let key = AddressKey(hex: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw HubError.unavailable("\(path) is damaged (it holds 64 hex digits): restore it from a copy")
            }
            if making { _ = chmod(path, 0o600) }
            return key
        }
        guard making else { return nil }
        let key = AddressKey.random()
        do { try DurableFile.writeAtomically(Array((key.hex + "\n").utf8), to: path, mode: 0o600) } catch {
            throw HubError.unavailable("cannot write \(path): \(error.message)")
        }
        return key
    }

    /// What the records keep of a client's address.
    private func keyedAddress(_ address: String) throws -> TokenHash {
        guard let addressKey else { throw HubError.unavailable("\(directory) was opened to read only and has no hub.key") }
        return addressKey.hash(address)
    }

    deinit {
        if recordsFD >= 0 { close(recordsFD) }
        if lockFD >= 0 { close(lockFD) }
    }

    // MARK: Households

    public func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        try await onRecords { [self] in
            if records.households[household] != nil {
                throw HubError.conflict("household_exists", "household \(household) exists already")
            }
            try append([.household(id: household, created: firstDevice.created, address: try address.map(keyedAddress)),
                        .device(firstDevice, invite: nil)])
        }
    }

    public func householdExists(_ household: HouseholdID) async throws -> Bool {
        try await onRecords { [self] in records.households[household] != nil }
    }

    public func households() async throws -> [HouseholdID] {
        try await onRecords { [self] in records.householdOrder }
    }

    public func householdsCreated(from address: String, since: Timestamp) async throws -> Int {
        try await onRecords { [self] in
            let hash = try keyedAddress(address)
            return records.households.values.filter { $0.address == hash && $0.created >= since }.count
        }
    }

    // MARK: The journal

    /// Answered by ``HubCore`` over the journals, a household's pushes one at a time; a journal it
    /// cannot use now is an `error` answer, as the stdio hub gives. The token is not checked here:
    /// the routes check every request's from the records, and a long poll's again when it answers.
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash?) async throws -> SyncResponse {
        do {
            guard case .push = request else { return try await core.sync(household, request, as: actor, token: nil) }
            return try await pushTurns.run(household) { try await core.sync(household, request, as: actor, token: nil) }
        } catch let unusable as FileLineStore.Unusable {
            return .error(unusable.failure)
        }
    }

    /// The file's bytes, read without the writer's lock (beside a serving hub, too).
    public func journal(_ household: HouseholdID) async throws -> [UInt8] {
        try await lineStore.contents(of: household)
    }

    /// Moves a verified journal in as household `household`'s (`shop-hub
    /// household import`): refused if the household has events here already.
    /// The bytes are written beside its place, `fsync`ed and renamed into it,
    /// then the household recorded.
    public func importJournal(_ household: HouseholdID, journal bytes: [UInt8], created: Timestamp) async throws {
        let target = journalPath(household)
        try await onRecords { [self] in
            if Self.hasEvents(target) { throw HubError.conflict("household_exists", "household \(household) has events here already") }
            do { try DurableFile.writeAtomically(bytes, to: target, mode: 0o600) } catch let error as JournalError {
                throw HubError.unavailable("cannot write \(target): \(error.message)")
            }
            try recordHousehold(household, created: created)
        }
    }

    public func recordImported(_ household: HouseholdID, created: Timestamp) async throws {
        try await onRecords { [self] in try recordHousehold(household, created: created) }
    }

    /// On the records' queue: the household recorded unless it is there.
    private func recordHousehold(_ household: HouseholdID, created: Timestamp) throws {
        if records.households[household] == nil {
            try append([.household(id: household, created: created, address: nil)])
        }
    }

    /// The household's journal file: a path other tools (`shop-replay verify`) read.
    public func journalPath(_ household: HouseholdID) -> String { lineStore.path(of: household) }

    public func journalFile(_ household: HouseholdID) -> String? { journalPath(household) }

    private static func hasEvents(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_size > 0
    }

    // MARK: Devices and invites

    public func device(tokenHash: TokenHash) async throws -> DeviceRecord? {
        try await onRecords { [self] in records.devices[tokenHash] }
    }

    public func devices(of household: HouseholdID) async throws -> [DeviceRecord] {
        try await onRecords { [self] in
            records.deviceOrder.compactMap { records.devices[$0] }.filter { $0.household == household && $0.revoked == nil }
        }
    }

    public func addDevice(_ device: DeviceRecord) async throws {
        try await onRecords { [self] in
            try refuseTakenName(device)
            try append([.device(device, invite: nil)])
        }
    }

    private func refuseTakenName(_ device: DeviceRecord) throws {
        if records.devices.values.contains(where: { $0.household == device.household && $0.name == device.name && $0.revoked == nil }) {
            throw HubError.conflict("device_exists", "the household has a device named \(device.name) already: choose another name, or revoke that one")
        }
    }

    public func revokeDevice(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool {
        try await onRecords { [self] in
            guard let device = records.devices.values.first(where: { $0.household == household && $0.name == name && $0.revoked == nil }) else {
                return false
            }
            try append([.revoke(device.tokenHash, at: at, memberRemoved: false)])
            return true
        }
    }

    public func removeMember(_ actor: String, of household: HouseholdID, at: Timestamp) async throws -> Int {
        try await onRecords { [self] in
            let devices = records.deviceOrder.compactMap { records.devices[$0] }
                .filter { $0.household == household && $0.actor == actor && $0.revoked == nil }
            let invites = records.invites.values.filter { $0.household == household && $0.actor == actor && !records.usedInvites.contains($0.codeHash) }
            let lines = devices.map { RecordLine.revoke($0.tokenHash, at: at, memberRemoved: true) }
                + invites.sorted { $0.id < $1.id }.map { RecordLine.cancelInvite($0.codeHash, at: at) }
            if !lines.isEmpty { try append(lines) }
            return devices.count
        }
    }

    public func seen(_ device: DeviceRecord, at: Timestamp) async {
        recordsQueue.async { [self] in
            guard var known = records.devices[device.tokenHash] else { return }
            let written = records.seenWritten[device.tokenHash]
            known.lastSeen = at
            records.devices[device.tokenHash] = known
            if written.map({ at.millisecondsSince1970 - $0.millisecondsSince1970 >= 60_000 }) ?? true {
                try? append([.seen(device.tokenHash, at: at)])
            }
        }
    }

    public func addInvite(_ invite: InviteRecord) async throws {
        try await onRecords { [self] in try append([.invite(invite)]) }
    }

    public func invites(of household: HouseholdID, at now: Timestamp) async throws -> [InviteRecord] {
        try await onRecords { [self] in outstandingInvites(of: household, at: now) }
    }

    /// On the records' queue.
    private func outstandingInvites(of household: HouseholdID, at now: Timestamp) -> [InviteRecord] {
        records.invites.values.filter { $0.household == household && !records.usedInvites.contains($0.codeHash) && $0.expires > now }
            .sorted { ($0.expires, $0.id) < ($1.expires, $1.id) }
    }

    public func cancelInvite(_ id: String, of household: HouseholdID, at now: Timestamp) async throws -> Bool {
        try await onRecords { [self] in
            guard let invite = outstandingInvites(of: household, at: now).first(where: { $0.id == id }) else { return false }
            try append([.cancelInvite(invite.codeHash, at: now)])
            return true
        }
    }

    public func redeemInvite(codeHash: TokenHash, at now: Timestamp,
                             enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)? {
        try await onRecords { [self] in
            guard let invite = records.invites[codeHash], !records.usedInvites.contains(codeHash), invite.expires > now else { return nil }
            let enrolled = device(invite)
            try refuseTakenName(enrolled)
            try append([.device(enrolled, invite: codeHash)])
            return (invite, enrolled)
        }
    }

    public func checkReady() async throws {
        try await onRecords { [self] in
            var info = stat()
            guard fstat(recordsFD, &info) == 0, access(directory + "/households", W_OK) == 0 else {
                throw HubError.unavailable("the data folder \(directory) cannot be written")
            }
        }
    }

    // MARK: Records

    /// What `hub.ndjson` says, folded.
    private struct Records {
        struct Household { var created: Timestamp; var address: TokenHash? }
        var households: [HouseholdID: Household] = [:]
        var householdOrder: [HouseholdID] = []
        var devices: [TokenHash: DeviceRecord] = [:]
        var deviceOrder: [TokenHash] = []
        var invites: [TokenHash: InviteRecord] = [:]
        var usedInvites: Set<TokenHash> = []
        /// When a device's `seen` was last written.
        var seenWritten: [TokenHash: Timestamp] = [:]

        mutating func apply(_ line: RecordLine) {
            switch line {
            case let .household(id, created, address):
                if households[id] == nil { householdOrder.append(id) }
                households[id] = Household(created: created, address: address)
            case let .device(device, invite):
                if devices[device.tokenHash] == nil { deviceOrder.append(device.tokenHash) }
                devices[device.tokenHash] = device
                if let invite { usedInvites.insert(invite) }
            case let .revoke(hash, at, memberRemoved):
                devices[hash]?.revoked = at
                devices[hash]?.memberRemoved = memberRemoved
            case let .invite(invite): invites[invite.codeHash] = invite
            case let .cancelInvite(hash, _): usedInvites.insert(hash)
            case let .seen(hash, at):
                devices[hash]?.lastSeen = at
                seenWritten[hash] = at
            }
        }
    }

    /// One line of `hub.ndjson`.
    private enum RecordLine {
        case household(id: HouseholdID, created: Timestamp, address: TokenHash?)
        case device(DeviceRecord, invite: TokenHash?)
        /// `memberRemoved`: its actor was removed from the household (written `"why": "member_removed"`).
        case revoke(TokenHash, at: Timestamp, memberRemoved: Bool)
        case invite(InviteRecord)
        /// An owner cancelled the invite with this code's hash, or its member was removed: it is used up.
        case cancelInvite(TokenHash, at: Timestamp)
        case seen(TokenHash, at: Timestamp)

        var json: JSONValue {
            switch self {
            case let .household(id, created, address):
                return .object([("type", "household"), ("household", .string(id.description)), ("created", .string(created.description))]
                               + (address.map { [("address", .string($0.hex))] } ?? []))
            case let .device(d, invite):
                return .object([("type", "device"), ("household", .string(d.household.description)), ("device", .string(d.name)),
                                ("actor", .string(d.actor)), ("tokenHash", .string(d.tokenHash.hex)), ("created", .string(d.created.description))]
                               + (invite.map { [("invite", .string($0.hex))] } ?? []))
            case let .revoke(hash, at, memberRemoved):
                return .object([("type", "revoke"), ("tokenHash", .string(hash.hex)), ("at", .string(at.description))]
                               + (memberRemoved ? [("why", "member_removed")] : []))
            case let .invite(i):
                return .object([("type", "invite"), ("household", .string(i.household.description)), ("codeHash", .string(i.codeHash.hex)),
                                ("actor", .string(i.actor)), ("expires", .string(i.expires.description)), ("by", .string(i.by)), ("id", .string(i.id))])
            case let .cancelInvite(hash, at):
                return .object([("type", "cancelInvite"), ("codeHash", .string(hash.hex)), ("at", .string(at.description))])
            case let .seen(hash, at):
                return .object([("type", "seen"), ("tokenHash", .string(hash.hex)), ("at", .string(at.description))])
            }
        }

        init?(json: JSONValue) {
            guard case let .object(pairs) = json else { return nil }
            var fields: [String: String] = [:]
            for (key, value) in pairs { if let text = value.stringValue { fields[key] = text } }
            func time(_ key: String) -> Timestamp? { fields[key].flatMap(Timestamp.init) }
            func hash(_ key: String) -> TokenHash? { fields[key].flatMap(TokenHash.init(hex:)) }
            let household = fields["household"].flatMap(HouseholdID.init)
            switch fields["type"] {
            case "household":
                guard let household, let created = time("created") else { return nil }
                self = .household(id: household, created: created, address: hash("address"))
            case "device":
                guard let household, let name = fields["device"], let actor = fields["actor"], let token = hash("tokenHash"),
                      let created = time("created") else { return nil }
                self = .device(DeviceRecord(household: household, name: name, actor: actor, tokenHash: token, created: created),
                               invite: hash("invite"))
            case "revoke":
                guard let token = hash("tokenHash"), let at = time("at") else { return nil }
                self = .revoke(token, at: at, memberRemoved: fields["why"] == "member_removed")
            case "invite":
                guard let household, let code = hash("codeHash"), let actor = fields["actor"], let expires = time("expires"),
                      let by = fields["by"] else { return nil }
                // An invite an older hub recorded has no id: one made from its code's hash, the same at every start.
                self = .invite(InviteRecord(household: household, codeHash: code, actor: actor, expires: expires, by: by,
                                            id: fields["id"] ?? String(SHA256.hash(Array("invite \(code.hex)".utf8)).hex.prefix(16))))
            case "cancelInvite":
                guard let code = hash("codeHash"), let at = time("at") else { return nil }
                self = .cancelInvite(code, at: at)
            case "seen":
                guard let token = hash("tokenHash"), let at = time("at") else { return nil }
                self = .seen(token, at: at)
            default:
                return nil
            }
        }
    }

    private func loadRecords() throws {
        recordsFD = readOnly ? open(recordsPath, O_RDONLY | O_CLOEXEC) : open(recordsPath, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard recordsFD >= 0 else { throw HubError.unavailable("cannot open \(recordsPath): \(String(cString: strerror(errno)))") }
        if !readOnly { _ = fchmod(recordsFD, 0o600) }
        guard let data = FileManager.default.contents(atPath: recordsPath) else {
            throw HubError.unavailable("cannot read \(recordsPath)")
        }
        let bytes = Array(data)
        var offset = 0, number = 0
        while offset < bytes.count {
            number += 1
            guard let end = bytes[offset...].firstIndex(of: 0x0A) else {
                if !readOnly { try cutTornRecord(at: offset, of: bytes) }
                break
            }
            guard let value = try? JSONValue.parse(Array(bytes[offset..<end])), let line = RecordLine(json: value) else {
                throw HubError.unavailable("\(recordsPath) is damaged at line \(number) (byte offset \(offset)): the hub's records are not read past a damaged line; restore the file from a copy")
            }
            apply(line)
            offset = end + 1
        }
    }

    /// A last line without its newline: a write a crash cut short, which no
    /// request was answered for. Its bytes are kept beside the records, through
    /// the core's durable path (written whole, `fsync`ed, renamed into place, the
    /// folder `fsync`ed), before the records are cut: if they cannot be kept,
    /// nothing is cut and the hub does not start.
    private func cutTornRecord(at offset: Int, of bytes: [UInt8]) throws {
        let backup = "\(recordsPath).torn-\(clock.now().millisecondsSince1970)"
        func notKept(_ why: String) -> HubError {
            HubError.unavailable("the torn last line of \(recordsPath) could not be kept in \(backup) (\(why)); nothing was cut")
        }
        guard access(backup, F_OK) != 0 else { throw notKept("it exists already") }
        do { try DurableFile.writeAtomically(Array(bytes[offset...]), to: backup, mode: 0o600) } catch { throw notKept(error.message) }
        guard ftruncate(recordsFD, off_t(offset)) == 0, fsync(recordsFD) == 0 else {
            throw HubError.unavailable("cannot cut the torn last line of \(recordsPath)")
        }
    }

    /// Appends lines and `fsync`s them before anything is answered; folds them in only then.
    private func append(_ lines: [RecordLine]) throws {
        guard !readOnly else { throw HubError.unavailable("\(directory) was opened to read only") }
        let bytes = lines.flatMap { SyncWire.line($0.json) }
        var info = stat()
        guard fstat(recordsFD, &info) == 0 else { throw HubError.unavailable("cannot stat \(recordsPath)") }
        var done = 0
        while done < bytes.count {
            // reason: `done < bytes.count`, so the buffer is not empty and has a base address.
            let n = bytes.withUnsafeBytes { write(recordsFD, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                _ = ftruncate(recordsFD, info.st_size)
                throw HubError.unavailable("cannot write \(recordsPath): \(String(cString: strerror(errno)))")
            }
            done += n
        }
        guard fsync(recordsFD) == 0 else {
            _ = ftruncate(recordsFD, info.st_size)
            throw HubError.unavailable("cannot fsync \(recordsPath)")
        }
        for line in lines { apply(line) }
    }

    /// Folds one record in; a household's journal is known to the line store from then on.
    private func apply(_ line: RecordLine) {
        records.apply(line)
        if case let .household(id, _, _) = line { lineStore.know(id) }
    }

    // MARK: Queues

    private func onRecords<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await on(recordsQueue, body)
    }

    private func on<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
