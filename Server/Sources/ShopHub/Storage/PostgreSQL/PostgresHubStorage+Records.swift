import Foundation
import Logging
import Metrics
import NIOCore
import PostgresNIO
import ShopEvents
import Synchronization

/// The hub's records: households, devices, invites, tokens and their rates; a journal's export and import.
extension PostgresHubStorage {
    // MARK: Households

    public func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        try await answered { try await self.createHouseholdNow(household, firstDevice: firstDevice, from: address) }
    }

    func createHouseholdNow(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        let addressHash = if let address { try await keyedAddress(address) } else { nil as TokenHash? }
        try await transaction { connection in
            try await connection.rows("""
                INSERT INTO households (household, created_ms, head_hash) VALUES (\(household.uuid), \(firstDevice.created.millisecondsSince1970), \(SHA256Digest.zero.hex))
                """, logger: logger)
            if let addressHash {
                try await connection.rows("""
                    INSERT INTO household_creations (address_hash, created_ms, household)
                    VALUES (\(addressHash.hex), \(firstDevice.created.millisecondsSince1970), \(household.uuid))
                    """, logger: logger)
            }
            try await insertDevice(firstDevice, invite: nil, on: connection)
        }
    }

    public func householdExists(_ household: HouseholdID) async throws -> Bool {
        try await answered { try await self.householdExistsNow(household) }
    }

    func householdExistsNow(_ household: HouseholdID) async throws -> Bool {
        try await client.rows("SELECT 1 FROM households WHERE household = \(household.uuid)", logger: logger).count == 1
    }

    /// One statement: the household's row, unless it is there.
    public func recordImported(_ household: HouseholdID, created: Timestamp) async throws {
        try await answered {
            _ = try await self.client.rows("""
                INSERT INTO households (household, created_ms, head_hash) VALUES (\(household.uuid), \(created.millisecondsSince1970), \(SHA256Digest.zero.hex))
                ON CONFLICT (household) DO NOTHING
                """, logger: self.logger)
        }
    }

    public func households() async throws -> [HouseholdID] {
        try await answered { try await self.householdsNow() }
    }

    func householdsNow() async throws -> [HouseholdID] {
        try await client.rows("SELECT household FROM households ORDER BY created_ms, household", logger: logger)
            .map { HouseholdID(try $0.decode(UUID.self)) }
    }

    public func householdsCreated(from address: String, since: Timestamp) async throws -> Int {
        try await answered { try await self.householdsCreatedNow(from: address, since: since) }
    }

    func householdsCreatedNow(from address: String, since: Timestamp) async throws -> Int {
        let hash = try await keyedAddress(address)
        let rows = try await client.rows("""
            SELECT count(*) FROM household_creations WHERE address_hash = \(hash.hex) AND created_ms >= \(since.millisecondsSince1970)
            """, logger: logger)
        return try rows.first?.decode(Int.self) ?? 0
    }

    public func journal(_ household: HouseholdID) async throws -> [UInt8] {
        try await answered { try await self.journalNow(household) }
    }

    /// None: the lines are rows (`household export` writes them out).
    public func journalFile(_ household: HouseholdID) -> String? { nil }

    func journalNow(_ household: HouseholdID) async throws -> [UInt8] {
        var out: [UInt8] = []
        for row in try await client.rows("SELECT line FROM lines WHERE household = \(household.uuid) ORDER BY seq", logger: logger) {
            var buffer = try row.decode(ByteBuffer.self)
            out += buffer.readBytes(length: buffer.readableBytes) ?? []
            out.append(0x0A)
        }
        return out
    }

    /// Moves a household's journal in (`shop-hub household import`): every line's chain and rules checked,
    /// the household made if it is not there, refused if it has lines already.
    public func importJournal(_ household: HouseholdID, journal bytes: [UInt8], created: Timestamp) async throws {
        let lines = bytes.split(separator: 0x0A).map(Array.init)
        var folded = HubRules.Fold()
        var rows: [(Int64, ByteBuffer, String)] = []
        var commands: [UUID: (first: Int, count: Int)] = [:]
        for (index, line) in lines.enumerated() {
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line) else {
                throw HubError.badRequest("line \(index + 1) is not an event this hub reads")
            }
            guard recorded.seq == folded.head.seq + 1, recorded.prev == folded.head.hash else {
                throw HubError.badRequest("line \(index + 1): the chain breaks (seq \(recorded.seq), prev \(recorded.prev))")
            }
            if index == 0 {
                guard case let .householdCreated(id, _, _, _) = recorded.event, id == household else {
                    throw HubError.badRequest("the journal's first line does not create household \(household)")
                }
            }
            do { try ShopDecider.check(recorded.event, folded.state, actor: recorded.actor) } catch {
                throw HubError.badRequest("line \(index + 1): \(recorded.event.typeName) is not legal here (\(error.code): \(error.message))")
            }
            let hash = SHA256.hash(line)
            folded.apply(recorded, hash: hash)
            rows.append((Int64(recorded.seq), ByteBuffer(bytes: line), hash.hex))
            if let existing = commands[recorded.command.uuid] { commands[recorded.command.uuid] = (existing.first, existing.count + 1) } else {
                commands[recorded.command.uuid] = (recorded.seq, 1)
            }
        }
        try await transaction { connection in
            try await connection.rows("""
                INSERT INTO households (household, created_ms, head_hash) VALUES (\(household.uuid), \(created.millisecondsSince1970), \(SHA256Digest.zero.hex))
                ON CONFLICT (household) DO NOTHING
                """, logger: logger)
            let existing = try await connection.rows("SELECT head_seq FROM households WHERE household = \(household.uuid) FOR UPDATE", logger: logger)
                .last?.decode(Int.self) ?? 0
            guard existing == 0 else { throw HubError.conflict("household_exists", "household \(household) has \(existing) events here already") }
            for chunk in stride(from: 0, to: rows.count, by: 5_000) {
                let part = rows[chunk..<min(rows.count, chunk + 5_000)]
                try await connection.rows("""
                    INSERT INTO lines (household, seq, line, hash)
                    SELECT \(household.uuid), s, l, h FROM unnest(\(part.map(\.0))::bigint[], \(part.map(\.1))::bytea[], \(part.map(\.2))::text[]) AS t(s, l, h)
                    """, logger: logger)
            }
            let records = Array(commands)
            try await connection.rows("""
                INSERT INTO commands (household, command, first_seq, count)
                SELECT \(household.uuid), c, f, n FROM unnest(\(records.map(\.key))::uuid[], \(records.map { Int64($0.value.first) })::bigint[],
                                                             \(records.map { Int64($0.value.count) })::bigint[]) AS t(c, f, n)
                """, logger: logger)
            try await connection.rows("""
                UPDATE households SET head_seq = \(folded.head.seq), head_hash = \(folded.head.hash.hex), last_at_ms = \(folded.lastAt?.millisecondsSince1970)
                WHERE household = \(household.uuid)
                """, logger: logger)
        }
        core.remember(household, .init(fold: folded))
    }

    // MARK: Devices and invites

    func insertDevice(_ device: DeviceRecord, invite: TokenHash?, on connection: PostgresConnection) async throws {
        do {
            try await connection.rows("""
                INSERT INTO devices (household, token_hash, name, actor, created_ms, invite)
                VALUES (\(device.household.uuid), \(device.tokenHash.hex), \(device.name), \(device.actor), \(device.created.millisecondsSince1970), \(invite?.hex))
                """, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw HubError.conflict("device_exists", "the household has a device named \(device.name) already: choose another name, or revoke that one")
        }
        try await connection.rows("INSERT INTO tokens (token_hash, household) VALUES (\(device.tokenHash.hex), \(device.household.uuid))", logger: logger)
    }

    static func device(_ row: (UUID, String, String, String, Int64, Int64?, Int64?)) -> DeviceRecord? {
        guard let hash = TokenHash(hex: row.1) else { return nil }
        return DeviceRecord(household: HouseholdID(row.0), name: row.2, actor: row.3, tokenHash: hash,
                            created: Timestamp(millisecondsSince1970: row.4),
                            lastSeen: row.5.map { Timestamp(millisecondsSince1970: $0) }, revoked: row.6.map { Timestamp(millisecondsSince1970: $0) })
    }

    public func device(tokenHash: TokenHash) async throws -> DeviceRecord? {
        try await answered { try await self.deviceNow(tokenHash: tokenHash) }
    }

    func deviceNow(tokenHash: TokenHash) async throws -> DeviceRecord? {
        let rows = try await client.rows("""
            SELECT d.household, d.token_hash, d.name, d.actor, d.created_ms, d.last_seen_ms, d.revoked_ms, d.revoked_why
            FROM tokens t JOIN devices d ON d.household = t.household AND d.token_hash = t.token_hash
            WHERE t.token_hash = \(tokenHash.hex)
            """, logger: logger)
        guard let row = try rows.first?.decode((UUID, String, String, String, Int64, Int64?, Int64?, String?).self) else { return nil }
        var device = Self.device((row.0, row.1, row.2, row.3, row.4, row.5, row.6))
        device?.memberRemoved = row.7 == Self.memberRemovedWhy
        return device
    }

    /// What `devices.revoked_why` holds for a device revoked because its member was removed.
    static let memberRemovedWhy = "member_removed"

    public func devices(of household: HouseholdID) async throws -> [DeviceRecord] {
        try await answered { try await self.devicesNow(of: household) }
    }

    func devicesNow(of household: HouseholdID) async throws -> [DeviceRecord] {
        let rows = try await client.rows("""
            SELECT household, token_hash, name, actor, created_ms, last_seen_ms, revoked_ms FROM devices
            WHERE household = \(household.uuid) AND revoked_ms IS NULL ORDER BY created_ms, name
            """, logger: logger)
        return try rows.compactMap { Self.device(try $0.decode((UUID, String, String, String, Int64, Int64?, Int64?).self)) }
    }

    public func addDevice(_ device: DeviceRecord) async throws {
        try await answered { try await self.addDeviceNow(device) }
    }

    func addDeviceNow(_ device: DeviceRecord) async throws {
        try await transaction { connection in try await insertDevice(device, invite: nil, on: connection) }
    }

    public func revokeDevice(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool {
        try await answered { try await self.revokeDeviceNow(name, of: household, at: at) }
    }

    func revokeDeviceNow(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool {
        let revoked = try await client.rows("""
            UPDATE devices SET revoked_ms = \(at.millisecondsSince1970)
            WHERE household = \(household.uuid) AND name = \(name) AND revoked_ms IS NULL RETURNING token_hash
            """, logger: logger).map { try $0.decode(String.self) }
        forget(revoked)
        if !revoked.isEmpty {
            // Every process's polls of the household wake and check their tokens: the revoked one answers 401 now.
            _ = try? await client.rows("SELECT pg_notify(\(Self.channel), \(household.description))", logger: logger)
        }
        return !revoked.isEmpty
    }

    public func removeMember(_ actor: String, of household: HouseholdID, at: Timestamp) async throws -> Int {
        try await answered { try await self.removeMemberNow(actor, of: household, at: at) }
    }

    func removeMemberNow(_ actor: String, of household: HouseholdID, at: Timestamp) async throws -> Int {
        let revoked = try await transaction { connection -> [String] in
            let rows = try await connection.rows("""
                UPDATE devices SET revoked_ms = \(at.millisecondsSince1970), revoked_why = \(Self.memberRemovedWhy)
                WHERE household = \(household.uuid) AND actor = \(actor) AND revoked_ms IS NULL RETURNING token_hash
                """, logger: logger)
            let revoked = try rows.map { try $0.decode(String.self) }
            try await connection.rows("""
                UPDATE invites SET cancelled_ms = \(at.millisecondsSince1970)
                WHERE household = \(household.uuid) AND actor = \(actor) AND used_ms IS NULL AND cancelled_ms IS NULL
                """, logger: logger)
            return revoked
        }
        forget(revoked)
        if !revoked.isEmpty {
            // Every process's polls of the household wake and check their tokens, as for a revoke.
            _ = try? await client.rows("SELECT pg_notify(\(Self.channel), \(household.description))", logger: logger)
        }
        return revoked.count
    }

    public func seen(_ device: DeviceRecord, at: Timestamp) async {
        // At most a write a minute a device: a busy device's every request does not write.
        if let last = device.lastSeen, at.millisecondsSince1970 - last.millisecondsSince1970 < 60_000 { return }
        devicesByToken.withLock { cache in
            if var kept = cache[device.tokenHash.hex] { kept.lastSeen = at; cache[device.tokenHash.hex] = kept }
        }
        _ = try? await bookkeeping.rows("""
            UPDATE devices SET last_seen_ms = \(at.millisecondsSince1970) WHERE household = \(device.household.uuid) AND token_hash = \(device.tokenHash.hex)
            """, logger: logger)
    }

    public func addInvite(_ invite: InviteRecord) async throws {
        try await answered { try await self.addInviteNow(invite) }
    }

    func addInviteNow(_ invite: InviteRecord) async throws {
        try await transaction { connection in
            try await connection.rows("""
                INSERT INTO invites (household, code_hash, actor, expires_ms, by_device, invite_id)
                VALUES (\(invite.household.uuid), \(invite.codeHash.hex), \(invite.actor), \(invite.expires.millisecondsSince1970), \(invite.by), \(invite.id))
                """, logger: logger)
            try await connection.rows("INSERT INTO invite_codes (code_hash, household) VALUES (\(invite.codeHash.hex), \(invite.household.uuid))", logger: logger)
        }
    }

    public func invites(of household: HouseholdID, at now: Timestamp) async throws -> [InviteRecord] {
        try await answered { try await self.invitesNow(of: household, at: now) }
    }

    func invitesNow(of household: HouseholdID, at now: Timestamp) async throws -> [InviteRecord] {
        let rows = try await client.rows("""
            SELECT code_hash, actor, expires_ms, by_device, invite_id FROM invites
            WHERE household = \(household.uuid) AND used_ms IS NULL AND cancelled_ms IS NULL AND expires_ms > \(now.millisecondsSince1970)
            ORDER BY expires_ms, invite_id
            """, logger: logger)
        var all: [InviteRecord] = []
        for row in rows {
            let (code, actor, expires, by, id) = try row.decode((String, String, Int64, String, String).self)
            guard let hash = TokenHash(hex: code) else { continue }
            all.append(InviteRecord(household: household, codeHash: hash, actor: actor, expires: Timestamp(millisecondsSince1970: expires), by: by, id: id))
        }
        return all
    }

    public func cancelInvite(_ id: String, of household: HouseholdID, at now: Timestamp) async throws -> Bool {
        try await answered {
            let rows = try await self.client.rows("""
                UPDATE invites SET cancelled_ms = \(now.millisecondsSince1970)
                WHERE household = \(household.uuid) AND invite_id = \(id) AND used_ms IS NULL AND cancelled_ms IS NULL
                AND expires_ms > \(now.millisecondsSince1970) RETURNING code_hash
                """, logger: self.logger)
            return !rows.isEmpty
        }
    }

    public func redeemInvite(codeHash: TokenHash, at now: Timestamp,
                             enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)? {
        try await answered { try await self.redeemInviteNow(codeHash: codeHash, at: now, enrolling: device) }
    }

    func redeemInviteNow(codeHash: TokenHash, at now: Timestamp,
                             enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)? {
        try await transaction { connection -> (InviteRecord, DeviceRecord)? in
            var found: InviteRecord?
            let rows = try await connection.rows("""
                SELECT i.household, i.actor, i.expires_ms, i.by_device FROM invite_codes c
                JOIN invites i ON i.household = c.household AND i.code_hash = c.code_hash
                WHERE c.code_hash = \(codeHash.hex) AND i.used_ms IS NULL AND i.cancelled_ms IS NULL AND i.expires_ms > \(now.millisecondsSince1970)
                FOR UPDATE OF i
                """, logger: logger)
            for row in rows {
                let (household, actor, expires, by) = try row.decode((UUID, String, Int64, String).self)
                found = InviteRecord(household: HouseholdID(household), codeHash: codeHash, actor: actor,
                                     expires: Timestamp(millisecondsSince1970: expires), by: by)
            }
            guard let invite = found else { return nil }
            try await connection.rows("""
                UPDATE invites SET used_ms = \(now.millisecondsSince1970) WHERE household = \(invite.household.uuid) AND code_hash = \(codeHash.hex)
                """, logger: logger)
            let enrolled = device(invite)
            try await insertDevice(enrolled, invite: codeHash, on: connection)
            return (invite, enrolled)
        }
    }

    /// The device and its request counted against the token's bucket in `rate_limits` (refilled by the
    /// time since its last request, less this one), in one statement on the bookkeeping pool: a
    /// crash forgets a few requests' worth of a limit, never an event. The token is looked up in the
    /// table, so a revoked one is found as such by every process at once. The device is kept in
    /// memory for this process's later sync requests, and the bucket's level with it.
    public func authenticate(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        try await answered {
            let now = at.millisecondsSince1970
            let rows = try await self.bookkeeping.rows(AuthenticateStatement(token: tokenHash.hex, burst: burst, rate: rate, at: now), logger: self.logger)
            for (household, hash, name, actor, created, seen, revoked, left) in rows {
                guard let device = Self.device((household, hash, name, actor, created, seen, revoked)) else { return nil }
                let seen = self.rates.seed(SharedTokenRates.Key(household: household, token: hash), level: left ?? 0, at: now, rate: rate, burst: burst)
                self.devicesByToken.withLock { cache in
                    if cache.count > 100_000 { cache.removeAll() }
                    cache[hash] = device
                }
                return (device, seen >= 0 ? .allowed : .limited(retryAfter: max(1, Int((-seen / max(rate, 0.001)).rounded(.up)))))
            }
            return nil
        }
    }

    /// A sync request's device from memory, its request counted in the token's bucket here, when
    /// this process has authenticated the token before; otherwise as
    /// ``authenticate(tokenHash:rate:burst:at:)``. The statement that answers the request checks
    /// the token is still live (``sync(_:_:as:token:)``): a revocation on any process stops it
    /// as soon as that revocation is committed.
    public func authenticateForSync(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        let hex = tokenHash.hex
        if let device = devicesByToken.withLock({ $0[hex] }),
           let decision = rates.take(SharedTokenRates.Key(household: device.household.uuid, token: hex), at: at.millisecondsSince1970) {
            return (device, decision)
        }
        return try await authenticate(tokenHash: tokenHash, rate: rate, burst: burst, at: at)
    }

    public func checkReady() async throws {
        try await answered { try await self.checkReadyNow() }
    }

    func checkReadyNow() async throws {
        try await client.rows("SELECT 1 FROM shop_hub_schema LIMIT 1", logger: logger)
    }
}
