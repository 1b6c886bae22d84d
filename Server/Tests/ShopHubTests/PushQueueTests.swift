import Foundation
import ShopEvents
import Synchronization
import Testing
@testable import ShopHub

/// The group commit of the PostgreSQL storage (`PushQueue`), with a write that only records: many
/// pushes at once, from real threads, over a few households.
@Suite struct PushQueueTests {
    /// What the recording write saw.
    final class Record: Sendable {
        struct State {
            var atDatabase: Set<HouseholdID> = []
            var batchesAtOnce = 0
            var mostBatchesAtOnce = 0
            var householdTwiceAtOnce = false
            /// A batch held two pushes of one household (they wait, then go together, decided in order).
            var householdTwiceInABatch = false
            var batches = 0
        }
        let state = Mutex(State())
    }

    @Test("every push is answered once, with its own answer; a household is never in two batches at once, but its waiting pushes share one; at most 4 batches at once; pushes wait and go together")
    func groupCommit() async throws {
        let queue = PushQueue(deadlines: Deadlines())
        let record = Record()
        let households = (0..<5).map { _ in HouseholdID() }
        let write: @Sendable ([PushQueue.Push]) async -> [Result<SyncResponse, any Error>] = { batch in
            record.state.withLock { state in
                let mine = Set(batch.map(\.household))
                if !state.atDatabase.isDisjoint(with: mine) { state.householdTwiceAtOnce = true }
                if mine.count < batch.count { state.householdTwiceInABatch = true }
                state.atDatabase.formUnion(mine)
                state.batchesAtOnce += 1
                state.mostBatchesAtOnce = max(state.mostBatchesAtOnce, state.batchesAtOnce)
                state.batches += 1
            }
            try? await Task.sleep(for: .milliseconds(2))   // a round trip
            record.state.withLock { state in
                state.atDatabase.subtract(batch.map(\.household))
                state.batchesAtOnce -= 1
            }
            // The answer names the push: its one command's id.
            return batch.map { .success(.results([PushResult(command: $0.commands[0].id!, seqs: [], error: nil)])) }
        }
        let pushes = 400
        let answers = try await withThrowingTaskGroup(of: (CommandID, SyncResponse).self) { group in
            for index in 0..<pushes {
                group.addTask {
                    let id = CommandID()
                    let push = PushQueue.Push(household: households[index % households.count],
                                              commands: [CommandEnvelope(.createList(list: ListID(), name: "L\(index)", priority: nil), id: id)], actor: "ana")
                    return (id, try await queue.push(push, write: write))
                }
            }
            var all: [(CommandID, SyncResponse)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.count == pushes)
        for (id, answer) in answers {
            #expect(answer == .results([PushResult(command: id, seqs: [], error: nil)]))
        }
        let seen = record.state.withLock { $0 }
        #expect(!seen.householdTwiceAtOnce)
        #expect(seen.mostBatchesAtOnce <= PushQueue.concurrentBatches)
        #expect(seen.batches < pushes, "pushes that waited went together (\(seen.batches) batches for \(pushes) pushes)")
        #expect(seen.householdTwiceInABatch, "a household's waiting pushes went in one batch")
    }

    /// A write the database never answers (it would answer success after 30 s).
    static let hung: @Sendable ([PushQueue.Push]) async -> [Result<SyncResponse, any Error>] = { batch in
        try? await Task.sleep(for: .seconds(30))
        return batch.map { _ in .success(.results([])) }
    }

    /// A push of one new list to `household`.
    static func push(to household: HouseholdID) -> PushQueue.Push {
        PushQueue.Push(household: household, commands: [CommandEnvelope(.createList(list: ListID(), name: "L", priority: nil), id: CommandID())], actor: "ana")
    }

    /// `body` given a queue of `timeout` whose deadlines are watched, as the storage watches them.
    static func withWatchedQueue(timeout: Duration, _ body: (PushQueue) async throws -> Void) async throws {
        let deadlines = Deadlines()
        let watcher = Task { await deadlines.watch() }
        defer { watcher.cancel() }
        try await body(PushQueue(timeout: timeout, deadlines: deadlines))
    }

    @Test("a batch the database never answers is answered unavailable when its time is up, and lets its household go")
    func aHungBatchLetsGo() async throws {
        // A second of its own for the push after it: a machine busy with the other tests can take a fifth of one to run it.
        try await Self.withWatchedQueue(timeout: .seconds(1)) { queue in
            let push = Self.push(to: HouseholdID())
            // Answered by the timeout (the hung write would answer success, after 30 s).
            await #expect(throws: HubError.self) { try await queue.push(push, write: Self.hung) }
            let answer = try await queue.push(push) { batch in batch.map { _ in .success(.results([])) } }
            #expect(answer == .results([]), "the household is free again")
        }
    }

    @Test("a push queued behind a hung batch is answered unavailable at its own deadline, counted from when it joined the queue, not after the hung batch's and then its own")
    func aPushBehindAHungBatchKeepsItsDeadline() async throws {
        try await Self.withWatchedQueue(timeout: .seconds(2)) { queue in
            let household = HouseholdID()
            // The first batch, refused at its deadline: when its answer came.
            let first = Task { () -> (refused: Bool, at: ContinuousClock.Instant) in
                do { _ = try await queue.push(Self.push(to: household), write: Self.hung); return (false, .now) } catch { return (error is HubError, .now) }
            }
            try await Task.sleep(for: .milliseconds(100))   // the first batch is at the "database"
            let joined = ContinuousClock.now
            let refusal = await #expect(throws: HubError.self) { try await queue.push(Self.push(to: household), write: Self.hung) }
            let answered = ContinuousClock.now
            #expect(refusal.map { [$0.code, $0.message, "\($0.retryAfter ?? 0)"] } == ["unavailable", "the database did not answer within 2.0 seconds", "5"])
            // Its deadline is 2 s after it joined, 0.1 s after the first's: both are answered about together. Behind the first
            // batch's deadline and then its own, it would be answered 2 s after the first. Measured against the first's answer,
            // which a busy machine delays as much, not against the clock.
            let (refused, firstAnswered) = await first.value
            #expect(refused)
            #expect(firstAnswered.duration(to: answered) < .seconds(1), "answered \(firstAnswered.duration(to: answered)) after the first, \(joined.duration(to: answered)) after it joined")
        }
    }

    @Test("a batch's failure is each of its pushes' failure, and the queue goes on")
    func aFailedBatchFailsItsPushesOnly() async throws {
        let queue = PushQueue(deadlines: Deadlines())
        let failing: @Sendable ([PushQueue.Push]) async -> [Result<SyncResponse, any Error>] = { batch in
            batch.map { _ in .failure(HubError.unavailable("the database is gone")) }
        }
        let push = Self.push(to: HouseholdID())
        await #expect(throws: HubError.self) { try await queue.push(push, write: failing) }
        let answer = try await queue.push(push) { batch in batch.map { _ in .success(.results([])) } }
        #expect(answer == .results([]))
    }
}
