import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

@Suite(.serialized) struct ConcurrencyTests {
    /// Four writer processes with 2,000 commands each, started together on one
    /// journal, while a reader keeps replaying it.
    @Test func fourWritersAndAReader() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        let setup = try tool.run(["apply"], stdin: commandLine("CreateHousehold", id: uuid(0, 0, 1), data: ["name": "Home", "currency": "EUR", "timeZone": "UTC"]) + "\n")
        #expect(setup.status == 0)
        var writers: [ChildProcess] = []
        var arguments: [[String]] = []
        for writer in 1...4 {
            let input = tool.path("writer-\(writer).ndjson")
            let lines = (0..<2000).map { n in
                commandLine("CreateItem", id: uuid(writer, n, 4), data: ["item": uuid(writer, n, 3), "name": "Writer \(writer) item \(n)"])
            }
            Scratch.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: input)
            // Small batches: the writers take turns at the lock many times over.
            arguments.append(["apply", input, "--journal", journal, "--batch", "\(25 * writer)", "--wait", "120"])
        }
        for words in arguments { writers.append(try ChildProcess(ToolRunner.binary, words)) }
        // A reader alongside: every complete line it sees is valid, and the views stay consistent.
        var reads = 0, lastSeen = 0
        let replayer = Replayer<HouseholdViews>(path: journal, verifyChain: true)
        while writers.contains(where: \.isRunning) {
            try replayer.catchUp()
            #expect(replayer.value.asOf >= lastSeen)
            #expect(replayer.value.state.items.count == replayer.value.asOf - 1)
            lastSeen = replayer.value.asOf
            reads += 1
            usleep(2_000)
        }
        for process in writers { #expect(process.waitForExit() == 0) }
        try replayer.catchUp()
        let events = try JournalReader.readAll(path: journal)
        #expect(events.count == 8001)
        #expect(events.map(\.seq) == Array(1...8001))
        #expect(Set(events.map(\.command)).count == 8001, "every command exactly once")
        #expect(try JournalVerifier.verify(path: journal).ok)
        #expect(Scratch.bytes(journal).split(separator: 0x0A).allSatisfy { (try? EventLineCodec.decode(Array($0))) != nil }, "no interleaved bytes")
        #expect(replayer.value == (try ViewEngine.views(journal: journal, useSnapshot: false).0))
        print("concurrency: 4 writers × 2,000 commands, 8,000 present once, \(reads) reads alongside, 0 invalid")
    }
}

@Suite struct CorruptionTests {
    /// 200 random single-byte changes, deletions and insertions in the middle
    /// of a valid journal: verify names the changed line, opening refuses, the file stays as it is.
    @Test func everyDamageIsFoundAtItsLine() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        do {
            let writer = try Journal.open(path: journal, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0xC0), actor: "ana"))
            var generator = RandomCommands(seed: 6)
            while writer.head.seq < 300 { _ = try? writer.execute(generator.next(for: writer.state)) }
            writer.close()
        }
        let original = Scratch.bytes(journal)
        var starts: [Int] = [0]
        for (index, byte) in original.enumerated() where byte == 0x0A { starts.append(index + 1) }
        let lineCount = starts.count - 1
        func line(at offset: Int) -> Int { (starts.lastIndex { $0 <= offset } ?? 0) + 1 }
        var rng = SplitMix64(seed: 200)
        var kinds = [0, 0, 0]
        for _ in 0..<200 {
            // In the middle: not the first line, and with two lines after it.
            let target = Int.random(in: 2...(lineCount - 2), using: &rng)
            let at = Int.random(in: starts[target - 1]..<starts[target], using: &rng)
            var damaged = original
            let kind = Int.random(in: 0..<3, using: &rng)
            kinds[kind] += 1
            switch kind {
            case 0: damaged[at] = damaged[at] ^ UInt8.random(in: 1...255, using: &rng)
            case 1: damaged.remove(at: at)
            default: damaged.insert(UInt8.random(in: 0...255, using: &rng), at: at)
            }
            Scratch.write(damaged, to: journal)
            let report = try JournalVerifier.verify(path: journal)
            #expect(!report.ok)
            #expect(report.failure?.line == line(at: at), "kind \(kind) at byte \(at): \(String(describing: report.failure?.message))")
            let refused = try #require(throws: JournalError.self) { try Journal.open(path: journal, options: .init(lockTimeout: 1)) }
            #expect(refused.reason == .corruptLine)
            #expect(Scratch.bytes(journal) == damaged, "refusing changes nothing")
        }
        print("corruption: 200 faults (\(kinds[0]) changed, \(kinds[1]) deleted, \(kinds[2]) inserted bytes), 200 found at their line")
    }
}

@Suite struct FullDiskTests {
    /// Writes that fail because the file may not grow (RLIMIT_FSIZE) give a
    /// clear error; afterwards nothing acknowledged is lost and no half event stays.
    @Test func aFileSizeLimitFailsCleanly() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        #expect(try tool.run(["apply"], stdin: commandLine("CreateHousehold", id: uuid(0, 0, 1), data: ["name": "Home", "currency": "EUR", "timeZone": "UTC"]) + "\n").status == 0)
        let lines = (0..<400).map { n in commandLine("CreateItem", id: uuid(9, n, 4), data: ["item": uuid(9, n, 3), "name": "Item \(n)"]) }
        Scratch.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: tool.path("input.ndjson"))
        var faults = 0
        for (limit, batch) in [(40, 1), (60, 7), (90, 50), (120, 200)] {  // 200: written by the encoding thread
            // bash's ulimit -f counts 1024-byte blocks
            let result = try tool.run(["-c", "ulimit -f \(limit) && exec \"$0\" apply input.ndjson --json --batch \(batch)", ToolRunner.binary],
                                      executable: "/bin/bash")
            #expect(result.status == 3, "\(result.stderr)")
            #expect(result.stderr.contains("io_error") && result.stderr.contains("File too large"), "\(result.stderr)")
            faults += 1
            let acknowledged = result.stdout.split(separator: "\n").compactMap { line -> [Int]? in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seqs"] as? [Int]
            }.flatMap { $0 }
            let size = Scratch.bytes(journal).count
            #expect(size <= limit * 1024)
            let report = try JournalVerifier.verify(path: journal)
            #expect(report.ok, "no half event: \(String(describing: report.failure))")
            #expect(acknowledged.allSatisfy { $0 <= report.head.seq }, "every acknowledged event is there")
        }
        print("full disk: \(faults) writes failed at a file size limit, 0 acknowledged events lost, 0 half events")
    }
}
