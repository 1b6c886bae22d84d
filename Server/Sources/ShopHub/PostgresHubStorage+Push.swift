import Foundation
import Logging
import Metrics
import NIOCore
import PostgresNIO
import ShopEvents
import Synchronization

/// Pushes: batched across households into one statement (group commit), decided by ``HubRules``
/// on the head this process keeps, written only if it is still the head; row-locked on a conflict.
extension PostgresHubStorage {
    /// A household's part of a batch while it is open: its state, the commands found recorded, how
    /// often another process moved its head under it.
    struct OpenHousehold {
        var folded: Folded
        var known: [CommandID: HubRules.CommandRecord] = [:]
        var conflicts = 0
    }

    /// A batch of pushes, of any households, in one statement, so one transaction and one round trip:
    /// each household's pushes decided in order against the state at the head this process knows;
    /// then, under the households' row locks, a household's lines are written only if that is still
    /// its head and none of its commands is recorded already. A household for which either failed
    /// writes nothing; its pushes are decided again on what the table holds, in the next statement.
    /// Each push's answer, in order.
    func write(_ batch: [PushQueue.Push]) async -> [Result<SyncResponse, any Error>] {
        let now = clock.now()
        var answers = [Result<SyncResponse, any Error>?](repeating: nil, count: batch.count)
        var order: [HouseholdID] = [], places: [HouseholdID: [Int]] = [:]
        for (index, push) in batch.enumerated() {
            if places[push.household] == nil { order.append(push.household) }
            places[push.household, default: []].append(index)
        }
        func fail(_ household: HouseholdID, _ error: any Error) { for index in places[household] ?? [] { answers[index] = .failure(error) } }
        // Each household's state, out of the cache while the batch is decided: only this task uses it
        // (one batch runs at a time), and a value held once is changed in place, not copied. A household
        // another process pushed to lately is decided on a copy, kept to catch up from if its head moved again.
        var open: [HouseholdID: OpenHousehold] = [:]
        for household in order {
            if let cached = heads.withLock({ $0.removeValue(forKey: household) }) {
                open[household] = OpenHousehold(folded: cached)
            } else {
                do { open[household] = OpenHousehold(folded: try await caughtUp(household, from: nil)) } catch { fail(household, error) }
            }
        }
        while !open.isEmpty {
            // A household another process won against is decided again under its row lock: it cannot
            // lose again, however busy the other processes are with it.
            for household in order {
                guard let state = open[household], state.conflicts > 0 else { continue }
                open[household] = nil
                let indices = places[household, default: []]
                do {
                    let (decided, refused) = try await writeUnderLock(household, indices.map { batch[$0] }, state, at: now)
                    remember(household, Folded(fold: decided.fold, contended: true))
                    let written = indices.enumerated().filter { !refused.contains($0.offset) }.map(\.element)
                    for (index, results) in zip(written, decided.results) { answers[index] = .success(.results(results)) }
                    for position in refused { answers[indices[position]] = .failure(HubError.unknownToken) }
                } catch {
                    fail(household, error)
                }
            }
            var round: [HouseholdPush] = []
            for household in order {
                guard var state = open.removeValue(forKey: household) else { continue }
                // The state out of `state`, held once (a contended household's copy kept aside, in `before`).
                let before: Folded? = state.folded.contended ? state.folded : nil
                let head = state.folded.head
                var fold = HubRules.Fold()
                swap(&fold, &state.folded.fold)
                let decided = decide(places[household, default: []].map { batch[$0] }, on: consume fold, known: state.known, in: household, at: now)
                round.append(HouseholdPush(household: household, expected: head, before: before, known: state.known, conflicts: state.conflicts,
                                           ids: places[household, default: []].flatMap { batch[$0].commands.compactMap { $0.id?.uuid } },
                                           tokens: Array(Set(places[household, default: []].compactMap { batch[$0].token })), decided: decided))
            }
            let outcomes: [HouseholdID: WriteOutcome]
            do { outcomes = try await write(round) } catch {
                for part in round { fail(part.household, error) }
                break
            }
            for part in round {
                do { try await settle(part, outcomes[part.household] ?? .unknown, batch: batch, answers: &answers, places: &places, open: &open) } catch {
                    fail(part.household, error)
                }
            }
        }
        return answers.map { $0 ?? .failure(HubError.unavailable("the push was not answered")) }
    }

    /// One household's part of a round, once the statement has answered: its pushes answered (written), or
    /// the household opened again to be decided anew (its head moved, a command was found recorded, a
    /// token revoked). Throws what its pushes are to fail with.
    func settle(_ part: HouseholdPush, _ outcome: WriteOutcome, batch: [PushQueue.Push], answers: inout [Result<SyncResponse, any Error>?],
                places: inout [HouseholdID: [Int]], open: inout [HouseholdID: OpenHousehold]) async throws {
        let household = part.household
        switch outcome {
        case .written:
            remember(household, Folded(fold: part.decided.fold, contended: part.conflicts > 0))
            for (index, results) in zip(places[household, default: []], part.decided.results) { answers[index] = .success(.results(results)) }
        case let .headMoved(moved):
            // Another process pushed (or the table was restored to an earlier history: folded anew).
            let restored = part.before == nil || moved.seq <= part.expected.seq   // equal seqs and another head: another history
            var folded = try await caughtUp(household, from: restored ? nil : part.before)
            folded.contended = true
            open[household] = OpenHousehold(folded: folded, known: part.known, conflicts: part.conflicts + 1)
        case .recorded:
            // The decided state holds the batch's events: caught up anew (or from the copy). The
            // commands found recorded are read again, with their types, under the row lock.
            let folded = try await caughtUp(household, from: part.before)
            open[household] = OpenHousehold(folded: folded, known: part.known, conflicts: part.conflicts + 1)
        case let .revoked(tokens):
            // Those pushes are refused; the others of the household are decided again without them.
            let refused = places[household, default: []].filter { batch[$0].token.map(tokens.contains) ?? false }
            for index in refused { answers[index] = .failure(HubError.unknownToken) }
            places[household]?.removeAll(where: refused.contains)
            forget(tokens)
            if !(places[household] ?? []).isEmpty {
                open[household] = OpenHousehold(folded: try await caughtUp(household, from: part.before), known: part.known, conflicts: part.conflicts)
            }
        case .unknown:
            throw HubError.unknownHousehold(household.description)
        }
    }

    /// One household's pushes in a transaction of their own that takes the household's row lock
    /// first, then reads what the table holds after `state` (lines, and the pushes' commands found
    /// recorded, each with its type from its last line), decides, and writes: no other process can
    /// move the head meanwhile. The slow path, for a household whose head another process moved under
    /// an optimistic batch, and for a push with a command id the household holds already.
    /// Returns the pushes decided, and the places in `pushes` of those refused for a revoked token.
    func writeUnderLock(_ household: HouseholdID, _ pushes: [PushQueue.Push], _ state: OpenHousehold,
                        at now: Timestamp) async throws -> (DecidedPush, refused: Set<Int>) {
        let uuid = household.uuid
        return try await transaction { connection in
            var found = false
            for try await _ in try await connection.query("SELECT 1 FROM households WHERE household = \(uuid) FOR UPDATE", logger: self.logger) {
                found = true
            }
            guard found else { throw HubError.unknownHousehold(household.description) }
            let tokens = Array(Set(pushes.compactMap(\.token)))
            var live: Set<String> = []
            if !tokens.isEmpty {
                for try await token in try await connection.query("""
                    SELECT token_hash FROM devices WHERE household = \(uuid) AND token_hash = ANY(\(tokens)) AND revoked_ms IS NULL
                    """, logger: self.logger).decode(String.self) {
                    live.insert(token)
                }
            }
            let refused = Set(pushes.indices.filter { pushes[$0].token.map { !live.contains($0) } ?? false })
            let pushes = pushes.indices.filter { !refused.contains($0) }.map { pushes[$0] }
            let ids = pushes.flatMap { $0.commands.compactMap { $0.id?.uuid } }
            // Each command found recorded, with its last line: its event gives the command's type.
            var known = state.known
            for try await (command, first, count, line) in try await connection.query("""
                SELECT c.command, c.first_seq, c.count, l.line FROM commands c
                JOIN lines l ON l.household = c.household AND l.seq = c.first_seq + c.count - 1
                WHERE c.household = \(uuid) AND c.command = ANY(\(ids))
                """, logger: self.logger
            ).decode((UUID, Int, Int, ByteBuffer).self) {
                var line = line
                guard case let .event(last) = try EventLineCodec.decodeLine(line.readBytes(length: line.readableBytes) ?? []) else {
                    throw HubError.unavailable("household \(household): line \(first + count - 1) is one this hub cannot fold (newer); update shop-hub")
                }
                known[CommandID(command)] = HubRules.CommandRecord(first: first, count: count, type: CommandType(endingWith: last.event.kind))
            }
            var start = try await self.caughtUp(household, from: state.folded, on: connection)
            let head = start.head
            var fold = HubRules.Fold()
            swap(&fold, &start.fold)
            let decided = self.decide(pushes, on: consume fold, known: known, in: household, at: now)
            // The commands found recorded were read under the lock and are answered from their records
            // (their first seqs): the statement checks only the others, which no process can record meanwhile.
            let part = HouseholdPush(household: household, expected: head, before: nil, known: known, conflicts: state.conflicts,
                                     ids: ids.filter { known[CommandID($0)] == nil }, tokens: [], decided: decided)
            guard case .written = try await self.write([part], on: connection)[household] ?? .unknown else {
                throw HubError.unavailable("household \(household): its head and lines in the table disagree; try again")
            }
            Counter(label: "shop_hub_pushes_locked_total").increment()
            return (decided, refused)
        }
    }

    /// One household's pushes of a batch, decided: what the statement writes for it and checks.
    struct HouseholdPush {
        var household: HouseholdID
        /// The head they were decided on.
        var expected: JournalHead
        /// The state they were decided on, kept when the household is contended.
        var before: Folded?
        var known: [CommandID: HubRules.CommandRecord]
        var conflicts: Int
        /// Every command id of the household's pushes.
        var ids: [UUID]
        /// The tokens its pushes came with, checked live where the lines are written.
        var tokens: [String]
        var decided: DecidedPush
    }

    /// A batch of pushes decided against `folded`, in order (``HubRules``): each push's results, the
    /// lines and command records to insert, and the state after them.
    typealias DecidedPush = HubRules.Decided

    func decide(_ batch: [PushQueue.Push], on fold: consuming HubRules.Fold, known: [CommandID: HubRules.CommandRecord],
                        in household: HouseholdID, at now: Timestamp) -> DecidedPush {
        HubRules(household: household).push(batch.map { HubRules.Push(commands: $0.commands, actor: $0.actor) }, on: consume fold, known: known,
                                            now: { now }, ids: ids)
    }

    enum WriteOutcome {
        /// Committed (or, with nothing to write, the head was still the one decided on).
        case written
        /// Another process moved the head: nothing was written.
        case headMoved(JournalHead)
        /// Commands of the push the household holds already: nothing was written. (They are read
        /// again, with their types, under the household's row lock.)
        case recorded
        /// A push's token was revoked (these, by hash): nothing was written.
        case revoked(Set<String>)
        /// No such household.
        case unknown
    }

    /// The batch's one statement: the households' row locks (`FOR UPDATE`, in household order, so two
    /// processes never wait for each other in a circle), and for each household the check that its
    /// head is the one decided on and that none of its commands is recorded, and — for those that
    /// pass — the lines, the command records, the head moved and the `NOTIFY`, all committed together.
    func write(_ round: [HouseholdPush], on connection: PostgresConnection? = nil) async throws -> [HouseholdID: WriteOutcome] {
        var statement = PushStatement(channel: Self.channel)
        for part in round {
            let uuid = part.household.uuid
            statement.households.append(uuid)
            statement.expectedSeqs.append(Int64(part.expected.seq))
            statement.expectedHashes.append(part.expected.hash.hex)
            statement.writes.append(!part.decided.lines.isEmpty)
            statement.headSeqs.append(Int64(part.decided.fold.head.seq))
            statement.headHashes.append(part.decided.fold.head.hash.hex)
            statement.lastAts.append(part.decided.fold.lastAt?.millisecondsSince1970 ?? 0)
            for id in part.ids { statement.checkHouseholds.append(uuid); statement.checkCommands.append(id) }
            for token in part.tokens { statement.tokenHouseholds.append(uuid); statement.tokens.append(token) }
            for line in part.decided.lines {
                statement.lineHouseholds.append(uuid)
                statement.seqs.append(Int64(line.event.seq))
                statement.lines.append(ByteBuffer(bytes: line.bytes))
                statement.hashes.append(line.hash.hex)
            }
            for (command, record) in part.decided.records {
                statement.commandHouseholds.append(uuid)
                statement.commands.append(command.uuid)
                statement.firsts.append(Int64(record.first))
                statement.counts.append(Int64(record.count))
            }
        }
        var heads: [UUID: JournalHead] = [:]
        var recorded: Set<UUID> = []
        var revoked: [UUID: Set<String>] = [:]
        let rows = if let connection { try await connection.execute(statement, logger: logger) } else { try await client.execute(statement, logger: logger) }
        for try await (household, seq, hash, command, _, _, token) in rows {
            if let seq, let hash { heads[household] = JournalHead(seq: seq, hash: SHA256Digest(hex: hash) ?? .zero) }
            if command != nil { recorded.insert(household) }
            if let token { revoked[household, default: []].insert(token) }
        }
        var outcomes: [HouseholdID: WriteOutcome] = [:]
        for part in round {
            let uuid = part.household.uuid
            if let tokens = revoked[uuid] {
                outcomes[part.household] = .revoked(tokens)
            } else if recorded.contains(uuid) {
                outcomes[part.household] = .recorded
            } else if let head = heads[uuid] {
                outcomes[part.household] = head == part.expected ? .written : .headMoved(head)
            } else {
                outcomes[part.household] = .unknown
            }
        }
        return outcomes
    }

    /// The household's state at its head in the table: `known` (this process's copy, if any)
    /// caught up from the lines after it.
    func caughtUp(_ household: HouseholdID, from known: Folded?, on connection: PostgresConnection? = nil) async throws -> Folded {
        var folded = known ?? Folded()
        let query: PostgresQuery = "SELECT seq, line, hash FROM lines WHERE household = \(household.uuid) AND seq > \(folded.head.seq) ORDER BY seq"
        let rows = if let connection { try await connection.query(query, logger: logger) } else { try await client.query(query, logger: logger) }
        for try await (seq, buffer, hash) in rows.decode((Int, ByteBuffer, String).self) {
            var buffer = buffer
            let line = buffer.readBytes(length: buffer.readableBytes) ?? []
            guard seq == folded.head.seq + 1, case let .event(recorded) = try EventLineCodec.decodeLine(line) else {
                throw HubError.unavailable("household \(household): line \(seq) is one this hub cannot fold (newer, or out of order); update shop-hub")
            }
            folded.fold.apply(recorded, hash: SHA256Digest(hex: hash) ?? SHA256.hash(line))
        }
        return folded
    }

    /// Keeps `folded` as this process's copy of the household, unless it holds a later head already.
    func remember(_ household: HouseholdID, _ folded: Folded) {
        heads.withLock { heads in
            if (heads[household]?.head.seq ?? -1) < folded.head.seq { heads[household] = folded }
        }
    }
}
