import Foundation
import Metrics
import ShopEvents

/// Pushes: a batch of any households decided by ``HubRules`` on the head this driver keeps,
/// appended only if it is still the head; decided again under the household's lock once it lost.
extension HubCore {
    /// A household's part of a batch while it is open: its state, the commands found recorded, how
    /// often another writer moved its head under it.
    struct OpenHousehold: Sendable {
        var folded: Folded
        var known: [CommandID: HubRules.CommandRecord] = [:]
        var conflicts = 0
    }

    /// One household's pushes of a round, decided: what the append writes for it and checks.
    struct Part {
        var append: HubAppend
        /// The state they were decided on, kept when the household is contended.
        var before: Folded?
        var known: [CommandID: HubRules.CommandRecord]
        var conflicts: Int
    }

    /// The answers of a batch being written, and where each household's pushes are in it.
    struct Answers {
        var results: [Result<SyncResponse, any Error>?]
        var order: [HouseholdID] = []
        var places: [HouseholdID: [Int]] = [:]

        init(_ batch: [HubPush]) {
            results = Array(repeating: nil, count: batch.count)
            for (index, push) in batch.enumerated() {
                if places[push.household] == nil { order.append(push.household) }
                places[push.household, default: []].append(index)
            }
        }

        mutating func fail(_ household: HouseholdID, _ error: any Error) {
            for index in places[household] ?? [] { results[index] = .failure(error) }
        }
    }

    /// A batch of pushes, of any households: each household's pushes decided in order against the
    /// state at the head this driver knows, then appended together only where that is still the
    /// head and none of the commands is recorded (one statement, for a database). A household for
    /// which either failed writes nothing; its pushes are decided again on what the store holds.
    /// Each push's answer, in order. A household is in at most one batch at a time.
    public func write(_ batch: [HubPush]) async -> [Result<SyncResponse, any Error>] {
        let now = clock.now()
        var answers = Answers(batch)
        // Each household's state, out of the cache while the batch is decided: a value held once is
        // changed in place, not copied. A contended household is decided on a copy (see `Part.before`).
        var open: [HouseholdID: OpenHousehold] = [:]
        for household in answers.order {
            if let cached = heads.withLock({ $0.removeValue(forKey: household) }) {
                open[household] = OpenHousehold(folded: cached)
            } else {
                do { open[household] = OpenHousehold(folded: try await caughtUp(household, from: nil)) } catch { answers.fail(household, error) }
            }
        }
        while !open.isEmpty {
            await writeLockedParts(batch, &open, &answers, at: now)
            var round: [Part] = []
            for household in answers.order {
                guard var state = open.removeValue(forKey: household) else { continue }
                let before: Folded? = state.folded.contended ? state.folded : nil
                let head = state.folded.head
                var fold = HubRules.Fold()
                swap(&fold, &state.folded.fold)
                let pushes = answers.places[household, default: []].map { batch[$0] }
                let decided = decide(pushes, on: consume fold, known: state.known, in: household, at: now)
                let append = HubAppend(household: household, expected: head, checked: pushes.flatMap { $0.commands.compactMap(\.id) },
                                       tokens: Array(Set(pushes.compactMap(\.token))), decided: decided)
                round.append(Part(append: append, before: before, known: state.known, conflicts: state.conflicts))
            }
            let outcomes: [HouseholdID: HubAppend.Outcome]
            do { outcomes = try await store.append(round.map(\.append)) } catch {
                for part in round { answers.fail(part.append.household, error) }
                break
            }
            for part in round {
                do { try await settle(part, outcomes[part.append.household] ?? .unknown, batch: batch, answers: &answers, open: &open) } catch {
                    answers.fail(part.append.household, error)
                }
            }
        }
        return answers.results.map { $0 ?? .failure(HubError.unavailable("the push was not answered")) }
    }

    /// The households another writer won against, decided again under their locks: they cannot lose again.
    private func writeLockedParts(_ batch: [HubPush], _ open: inout [HouseholdID: OpenHousehold], _ answers: inout Answers, at now: Timestamp) async {
        for household in answers.order {
            guard let state = open[household], state.conflicts > 0 else { continue }
            open[household] = nil
            let indices = answers.places[household, default: []]
            do {
                let (decided, refused) = try await writeUnderLock(household, indices.map { batch[$0] }, state, at: now)
                remember(household, Folded(fold: decided.fold, contended: true))
                let written = indices.enumerated().filter { !refused.contains($0.offset) }.map(\.element)
                for (index, results) in zip(written, decided.results) { answers.results[index] = .success(.results(results)) }
                for position in refused { answers.results[indices[position]] = .failure(HubError.unknownToken) }
            } catch {
                answers.fail(household, error)
            }
        }
    }

    /// One household's part of a round, once the store has answered: its pushes answered (written), or
    /// the household opened again to be decided anew (its head moved, a command was found recorded, a
    /// token revoked). Throws what its pushes are to fail with.
    private func settle(_ part: Part, _ outcome: HubAppend.Outcome, batch: [HubPush], answers: inout Answers,
                        open: inout [HouseholdID: OpenHousehold]) async throws {
        let household = part.append.household
        switch outcome {
        case .written:
            remember(household, Folded(fold: part.append.decided.fold, contended: part.conflicts > 0))
            for (index, results) in zip(answers.places[household, default: []], part.append.decided.results) {
                answers.results[index] = .success(.results(results))
            }
        case let .headMoved(moved):
            // Another writer pushed (or the store was restored to an earlier history: folded anew).
            let restored = part.before == nil || moved.seq <= part.append.expected.seq   // equal seqs and another head: another history
            var folded = try await caughtUp(household, from: restored ? nil : part.before)
            folded.contended = true
            open[household] = OpenHousehold(folded: folded, known: part.known, conflicts: part.conflicts + 1)
        case .recorded:
            // The decided state holds the batch's events: caught up anew (or from the copy). The
            // commands found recorded are read again, with their types, under the household's lock.
            let folded = try await caughtUp(household, from: part.before)
            open[household] = OpenHousehold(folded: folded, known: part.known, conflicts: part.conflicts + 1)
        case let .revoked(tokens):
            // Those pushes are refused; the others of the household are decided again without them.
            let refused = answers.places[household, default: []].filter { batch[$0].token.map(tokens.contains) ?? false }
            for index in refused { answers.results[index] = .failure(HubError.unknownToken) }
            answers.places[household]?.removeAll(where: refused.contains)
            revoked(tokens)
            if !(answers.places[household] ?? []).isEmpty {
                open[household] = OpenHousehold(folded: try await caughtUp(household, from: part.before), known: part.known, conflicts: part.conflicts)
            }
        case .unknown:
            throw HubError.unknownHousehold(household.description)
        }
    }

    /// One household's pushes with its lock held: the live tokens, the pushes' commands found
    /// recorded and the lines after `state` read, decided and appended; no other writer can move
    /// the head meanwhile. The slow path, for a household whose head another writer moved under an
    /// optimistic batch, and for a push with a command id the household holds already.
    /// Returns the pushes decided, and the places in `pushes` of those refused for a revoked token.
    func writeUnderLock(_ household: HouseholdID, _ pushes: [HubPush], _ state: OpenHousehold,
                        at now: Timestamp) async throws -> (HubRules.Decided, refused: Set<Int>) {
        try await store.withLock(household) { locked in
            let tokens = Array(Set(pushes.compactMap(\.token)))
            let live = tokens.isEmpty ? [] : try await locked.liveTokens(tokens)
            let refused = Set(pushes.indices.filter { pushes[$0].token.map { !live.contains($0) } ?? false })
            let pushes = pushes.indices.filter { !refused.contains($0) }.map { pushes[$0] }
            let ids = pushes.flatMap { $0.commands.compactMap(\.id) }
            let known = state.known.merging(try await locked.records(commands: ids)) { $1 }
            var start = try self.caughtUp(household, from: state.folded, lines: try await locked.lines(after: state.folded.head.seq).lines)
            let head = start.head
            var fold = HubRules.Fold()
            swap(&fold, &start.fold)
            let decided = self.decide(pushes, on: consume fold, known: known, in: household, at: now)
            // The commands found recorded were read under the lock and are answered from their records:
            // the append checks only the others, which no writer can record meanwhile.
            let append = HubAppend(household: household, expected: head, checked: ids.filter { known[$0] == nil }, decided: decided)
            guard case .written = try await locked.append(append) else {
                throw HubError.unavailable("household \(household): its head and lines in the store disagree; try again")
            }
            Counter(label: "shop_hub_pushes_locked_total").increment()
            return (decided, refused)
        }
    }

    func decide(_ pushes: [HubPush], on fold: consuming HubRules.Fold, known: [CommandID: HubRules.CommandRecord],
                in household: HouseholdID, at now: Timestamp) -> HubRules.Decided {
        HubRules(household: household).push(pushes.map { HubRules.Push(commands: $0.commands, actor: $0.actor) }, on: consume fold,
                                            known: known, now: { now }, ids: ids)
    }

    /// The household's state at its head in the store: `known` (this driver's copy, if any) caught up from the lines after it.
    func caughtUp(_ household: HouseholdID, from known: Folded?) async throws -> Folded {
        try caughtUp(household, from: known, lines: try await store.lines(of: household, after: known?.head.seq ?? 0, limit: nil, token: nil).lines)
    }

    func caughtUp(_ household: HouseholdID, from known: Folded?, lines: [HubLines.Line]) throws -> Folded {
        var folded = known ?? Folded()
        for line in lines {
            guard line.seq == folded.head.seq + 1, case let .event(recorded) = try EventLineCodec.decodeLine(line.bytes) else {
                throw HubError.unavailable("household \(household): line \(line.seq) is one this hub cannot fold (newer, or out of order); update shop-hub")
            }
            folded.fold.apply(recorded, hash: line.hash)
        }
        return folded
    }

    /// Keeps `folded` as this driver's copy of the household, unless it holds a later head already.
    func remember(_ household: HouseholdID, _ folded: Folded) {
        heads.withLock { heads in
            if (heads[household]?.head.seq ?? -1) < folded.head.seq { heads[household] = folded }
        }
    }
}
