import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Several writer processes meeting a journal path that does not exist yet,
/// with the timings that once lost acknowledged events: one run that writes
/// nothing and ends, one that writes slowly, one that starts late and will
/// not wait. Whatever the timing, every command answered `ok` must be in the
/// journal exactly once, the chain must hold, and the lock file must stay.
@Suite(.serialized) struct NewJournalRaceTests {
    struct Round {
        var idleEndsAfter: Double
        var slowStartsAfter: Double
        var slowCommands: Int
        var lateStartsAfter: Double
        var lateWait: Int
        var lateCommands: Int
    }

    @Test func racingWritersOnANewPathLoseNothing() throws {
        var generator = SystemRandomNumberGenerator()
        // The timing of the report first, then others around it.
        var rounds = [Round(idleEndsAfter: 0.4, slowStartsAfter: 0.15, slowCommands: 31, lateStartsAfter: 0.9, lateWait: 0, lateCommands: 30)]
        for _ in 0..<7 {
            rounds.append(Round(idleEndsAfter: Double.random(in: 0...0.5, using: &generator),
                                slowStartsAfter: Double.random(in: 0...0.4, using: &generator),
                                slowCommands: Int.random(in: 5...31, using: &generator),
                                lateStartsAfter: Double.random(in: 0...1.0, using: &generator),
                                lateWait: Bool.random(using: &generator) ? 0 : 5,
                                lateCommands: Int.random(in: 5...30, using: &generator)))
        }
        var acknowledged = 0
        for (index, round) in rounds.enumerated() {
            acknowledged += try run(round, number: index)
        }
        print("new-journal race: \(rounds.count) rounds, \(acknowledged) acknowledged commands, all present once, every chain valid")
    }

    /// Runs one round; returns how many commands were acknowledged.
    func run(_ round: Round, number: Int) throws -> Int {
        let tool = ToolRunner()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        let start = Date()
        func at(_ seconds: Double) {
            let wait = seconds - Date().timeIntervalSince(start)
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        func commands(writer: Int, count: Int) -> [String] {
            [commandLine("CreateHousehold", id: uuid(number, writer, 0xA0), data: ["name": "Home", "currency": "EUR", "timeZone": "UTC"])]
                + (0..<count).map { n in
                    commandLine("CreateItem", id: uuid(number, writer * 1000 + n, 0xA1), data: ["name": "w\(writer) item \(n)"])
                }
        }
        func spawn(_ name: String, wait: Int) throws -> ChildProcess {
            try ChildProcess(ToolRunner.binary, ["apply", "--journal", journal, "--json", "--wait", "\(wait)"],
                             stdin: .pipe, stdout: .file(tool.path("\(name).out")), stderr: .file(tool.path("\(name).err")))
        }
        let idle = try spawn("idle", wait: 5)
        at(round.slowStartsAfter)
        let slow = try spawn("slow", wait: 5)
        let slowLines = commands(writer: 1, count: round.slowCommands)
        let lateLines = commands(writer: 2, count: round.lateCommands)
        var late: ChildProcess?
        var idleOpen = true
        for (n, line) in slowLines.enumerated() {
            slow.write(line + "\n")
            usleep(20_000)
            if idleOpen, Date().timeIntervalSince(start) >= round.idleEndsAfter { idle.closeInput(); idleOpen = false }
            if late == nil, Date().timeIntervalSince(start) >= round.lateStartsAfter {
                late = try spawn("late", wait: round.lateWait)
                for line in lateLines { late!.write(line + "\n") }
                late!.closeInput()
            }
            _ = n
        }
        idle.closeInput()
        slow.closeInput()
        if late == nil {
            late = try spawn("late", wait: round.lateWait)
            for line in lateLines { late!.write(line + "\n") }
            late!.closeInput()
        }
        for process in [idle, slow, late!] { _ = process.waitForExit() }

        // Every `ok` answer's command is in the journal exactly once.
        var okCommands: [String] = []
        for name in ["idle", "slow", "late"] {
            for line in String(decoding: Scratch.bytes(tool.path("\(name).out")), as: UTF8.self).split(separator: "\n") {
                let answer = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
                if answer["ok"] as? Bool == true, let command = answer["command"] as? String { okCommands.append(command) }
            }
        }
        #expect(FileManager.default.fileExists(atPath: journal + ".lock"), "round \(number): the lock file is never removed")
        guard FileManager.default.fileExists(atPath: journal) else {
            #expect(okCommands.isEmpty, "round \(number): acknowledged commands but no journal")
            return 0
        }
        let report = try JournalVerifier.verify(path: journal)
        #expect(report.ok, "round \(number): \(report.failure?.message ?? "")")
        let events = try JournalReader.readAll(path: journal)
        let written = events.map { $0.command.description }
        #expect(Set(written).count == written.count, "round \(number): one event per command here")
        #expect(Set(okCommands) == Set(written), "round \(number): acknowledged \(okCommands.count), journal holds \(written.count)")
        #expect(okCommands.count == Set(okCommands).count)
        return okCommands.count
    }
}
