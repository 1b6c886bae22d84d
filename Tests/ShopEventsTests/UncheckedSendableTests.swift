import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Each `@unchecked Sendable` claim of ShopEvents (docs/DESIGN.md, "What is
/// shared across threads"), and the types that became checked `Sendable`
/// through ``Locked``, exercised from several threads at once, the result
/// checked whole. (`ThreadSafetyClaimsTests` holds the sequential ids, the
/// stepping clock and the batch channel to theirs.)
@Suite struct UncheckedSendableTests {
    /// A random household's journal of a few hundred events, and its events read back.
    static func journal(_ name: String = #function, seed: UInt64 = 7) throws -> (path: String, events: [RecordedEvent]) {
        let path = Scratch.directory(name).appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0xE5), actor: "ana"))
        var commands = RandomCommands(seed: seed)
        for _ in 0..<3 {
            _ = try journal.execute(batch: (0..<200).map { _ in CommandEnvelope(commands.next(for: journal.state)) })
        }
        journal.close()
        return (path, try JournalReader.readAll(path: path))
    }

    // MARK: Locked (the one lock-guarded box; @unchecked: `value` only inside `withLock`)

    @Test func lockedTakesEveryChangeOfEightThreadsWhole() {
        let shared = Locked((count: 0, seen: [Int]()))
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for n in 0..<2_000 {
                shared.withLock { state in
                    state.count += 1
                    state.seen.append(thread * 2_000 + n)
                }
            }
        }
        let (count, seen) = shared.withLock { ($0.count, $0.seen) }
        #expect(count == 16_000)
        #expect(seen.sorted() == Array(0..<16_000))
    }

    @Test func lockedHandsBackWhatTheBodyReturnsAndRethrows() {
        struct Refused: Error, Equatable {}
        let shared = Locked(41)
        #expect(shared.withLock { value -> Int in value += 1; return value } == 42)
        #expect(throws: Refused()) { try shared.withLock { _ in throw Refused() } }
        #expect(shared.withLock { $0 } == 42)
    }

    // MARK: The random ids (a pool of kernel bytes in a Locked)

    @Test func randomIdsFromEightThreadsAreAllDistinctVersion4Ids() {
        let ids = IDGenerator.random
        let made = Locked([UUID]())
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let mine = (0..<3_000).map { _ in ids.makeUUID() }   // 3,000 each: the 4 KiB pool refilled many times
            made.withLock { $0 += mine }
        }
        let all = made.withLock { $0 }
        #expect(all.count == 24_000)
        #expect(Set(all).count == 24_000)
        #expect(all.filter { $0.uuid.6 >> 4 != 4 || $0.uuid.8 >> 6 != 0b10 } == [])
    }

    // MARK: MappedRecords (@unchecked: immutable; its bytes never written while it lives)

    @Test func mappedRecordsReadByEightThreadsAtOnceGiveEveryRecord() {
        // 4,096 records of 12 bytes: 3n as eight bytes, then n as four (little-endian).
        var bytes: [UInt8] = []
        for n in 0..<4_096 {
            withUnsafeBytes(of: (UInt64(n) * 3).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(n).littleEndian) { bytes += $0 }
        }
        let records = MappedRecords(BinaryReader(bytes), at: 0, count: 4_096, size: 12)
        let sums = Locked([UInt64]())
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            var sum: UInt64 = 0
            for index in 0..<records.count where records.load(index, 8, as: UInt32.self) == UInt32(index) {
                sum += records.load(index, 0, as: UInt64.self)
            }
            sums.withLock { $0.append(sum) }
        }
        let expected = (0..<4_096).reduce(UInt64(0)) { $0 + UInt64($1) * 3 }
        #expect(sums.withLock { $0 } == Array(repeating: expected, count: 8))
    }

    // MARK: LineEncoder and EncodedBatch (@unchecked: handed over under `condition`; a batch read after `done`)

    /// Four encoders at once, each with its own encoding thread, each given a
    /// journal's events from a thread of its own: each gives the journal's bytes.
    @Test func fourEncodersAtOnceEachGiveTheJournalsBytes() throws {
        let (path, events) = try Self.journal()
        let file = Scratch.bytes(path)
        let encoded = Locked([[UInt8]]())
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let encoder = LineEncoder(prev: .zero, start: 0, writingTo: nil, capacity: 1 << 12, eventIDs: nil)
            for event in events { encoder.push(event) }
            let finished = encoder.finish()
            let bytes = finished.out.withUnsafeBytes { Array($0) }
            encoded.withLock { $0.append(bytes) }
        }
        #expect(encoded.withLock { $0 } == Array(repeating: file, count: 4))
    }

    /// Batch ends handed over while the encoding thread runs: each batch is
    /// filled in before `done` and holds its own lines' hashes.
    @Test func batchesEndedWhileEncodingHoldTheirOwnLines() throws {
        let (_, events) = try Self.journal()
        let encoder = LineEncoder(prev: .zero, start: 0, writingTo: nil, capacity: 1 << 12, eventIDs: nil)
        let batches = (0..<5).map { _ in EncodedBatch() }
        let cut = events.count / batches.count
        for (index, batch) in batches.enumerated() {
            let end = index == batches.count - 1 ? events.count : (index + 1) * cut
            for event in events[(index * cut)..<end] { encoder.push(event) }
            encoder.endBatch(batch)
        }
        encoder.finish()
        var hashes: [SHA256Digest] = []
        for batch in batches {
            batch.done.wait()
            #expect(batch.failure == nil)
            hashes += batch.lines.map(\.hash)
        }
        var prev = SHA256Digest.zero
        let expected = events.map { event -> SHA256Digest in
            var event = event
            prev = CommandLines.line(&event, after: prev).hash
            return prev
        }
        #expect(hashes == expected)
        #expect(batches.map { $0.lines.count } == batches.indices.map { $0 == batches.count - 1 ? events.count - 4 * cut : cut })
    }

    // MARK: ParallelLines (@unchecked: every mutable field under `condition`)

    /// Three workers and the consumer on chunks of 2 KiB: every event, in order, with its line's hash.
    @Test func threeWorkersOnSmallChunksGiveEveryEventInOrder() throws {
        let (path, events) = try Self.journal()
        let file = Scratch.bytes(path)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let lines = ParallelLines(fd: fd, from: 0, hashing: true, chunkSize: 2 << 10, workers: 3)
        var read: [RecordedEvent] = [], hashes: [SHA256Digest] = [], spans: [ParallelLines.Span] = []
        while let chunk = lines.take() {
            #expect(!chunk.cutShort)
            for index in 0..<chunk.events.count { read.append(chunk.events.take(index)) }
            hashes += chunk.hashes
            spans += chunk.spans
        }
        lines.stop()
        #expect(read == events)
        var expectedSpans: [[Int]] = [], offset = 0
        for line in file.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            expectedSpans.append([offset, line.count])
            offset += line.count + 1
        }
        #expect(spans.map { [$0.offset, $0.length] } == expectedSpans)
        #expect(hashes == spans.map { SHA256.hash(file[$0.offset..<($0.offset + $0.length)]) })
    }

    // MARK: RevertScan (its stretches' results in a Locked)

    @Test func aRevertSearchOnSixteenStretchesFindsWhatOneFinds() throws {
        let path = Scratch.directory().appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0xE6), actor: "ana"))
        try journal.execute(.createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "UTC"))
        let item = ItemID()
        try journal.execute(.createItem(item: item, name: "Milk", location: nil, details: .none))
        for n in 0..<60 {
            let purchase = PurchaseID()
            try journal.execute(.purchaseItem(purchase: purchase, item: item, list: nil, quantity: nil, unitPrice: nil, location: nil,
                                              purchasedAt: n.isMultiple(of: 7) ? TestClock.start : nil))
            if n.isMultiple(of: 3) { try journal.execute(.revertPurchase(purchase: purchase)) }
        }
        journal.close()
        let events = try JournalReader.readAll(path: path)
        let reverted = Set(events.compactMap { event -> PurchaseID? in
            if case let .purchaseReverted(purchase) = event.event { purchase } else { nil }
        })
        let whole = RevertScan.forecast(journal: path, parts: 1, lateItems: true)
        let stretches = RevertScan.forecast(journal: path, chunk: 512, parts: 16, lateItems: true)
        #expect(reverted.count == 20)
        #expect(whole == RevertScan.Forecast(reverted: reverted, lateItems: [item]))
        #expect(stretches == whole)
    }

    // MARK: FileWatch (its flags in a Locked; the descriptors closed once)

    /// A thread waiting for a change and sixteen asking it to stop at once: the
    /// waiter wakes; then eight closing it and asking it to stop again at once
    /// (as the watching thread and the stream's termination handler may).
    @Test func aWatchStoppedByManyThreadsWakesItsWaiterAndClosesOnce() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let watch = try FileWatch(path: folder.appendingPathComponent("shop.ndjson").path)
        let woke = DispatchSemaphore(value: 0)
        Thread {
            while !watch.isStopped { watch.waitForChange() }
            woke.signal()
        }.start()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in watch.stop() }
        #expect(woke.wait(timeout: .now() + 5) == .success)
        #expect(watch.isStopped)
        DispatchQueue.concurrentPerform(iterations: 8) { n in
            watch.close()
            if n.isMultiple(of: 2) { watch.stop() }   // after a close: no write to a closed pipe
        }
        #expect(watch.isStopped)
    }
}

