import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// A `shop-replay apply` child that reads commands from a pipe and answers each
/// after its fsync: every answer line is an acknowledgement.
final class Appender {
    let child: ChildProcess
    private var buffer: [UInt8] = []

    init(journal: String, batch: Int) throws {
        child = try ChildProcess(ToolRunner.binary, ["apply", "--journal", journal, "--json", "--batch", "\(batch)", "--wait", "10"],
                                 stdin: .pipe, stdout: .pipe)
    }

    func send(_ lines: [String]) { child.write(lines.joined(separator: "\n") + "\n") }

    /// Acknowledgements that have arrived: command id and seqs.
    func acknowledgements(waitingFor count: Int, timeout: Double) -> [(String, [Int])] {
        var acks: [(String, [Int])] = []
        let deadline = Date().addingTimeInterval(timeout)
        while acks.count < count, Date() < deadline {
            var poller = pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = read(child.output, &chunk, chunk.count)
            if n <= 0 { break }
            buffer += chunk[0..<n]
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], object["ok"] as? Bool == true,
                   let command = object["command"] as? String, let seqs = object["seqs"] as? [Int] {
                    acks.append((command, seqs))
                }
            }
        }
        return acks
    }

    func kill() {
        child.kill(SIGKILL)
        child.waitForExit()
        child.closeInput()
    }
}

func commandLine(_ type: String, id: String, data: [String: String]) -> String {
    let fields = data.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
    return "{\"type\":\"\(type)\",\"id\":\"\(id)\",\"actor\":\"crash\",\"data\":{\(fields)}}"
}

func uuid(_ round: Int, _ n: Int, _ kind: Int) -> String {
    String(format: "%08X-%04X-0000-0000-%012X", round, kind, n)
}

@Suite(.serialized) struct CrashTests {
    /// Kills a writer with SIGKILL at random moments, 50 times; every acknowledged
    /// command must be in the journal afterwards, whole, and the journal must verify.
    @Test func killedWritersLoseNoAcknowledgedEvent() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        let setup = try tool.run(["apply", "--json"], stdin: commandLine("CreateHousehold", id: uuid(0, 0, 1), data: ["name": "Home", "currency": "EUR", "timeZone": "UTC"])
                                 + "\n" + commandLine("CreateList", id: uuid(0, 1, 1), data: ["list": uuid(0, 1, 2), "name": "Weekly"]) + "\n")
        #expect(setup.status == 0)
        var rng = SplitMix64(seed: 2026)
        var acknowledged: [String: [Int]] = [:]
        var tornTails = 0, killsMidWrite = 0
        for round in 1...50 {
            // 256 commands a batch: their lines are written in pieces as they are encoded, before the fsync.
            let batch = [1, 1, 8, 64, 256].randomElement(using: &rng)!
            let appender = try Appender(journal: journal, batch: batch)
            var lines: [String] = []
            for n in 0..<(batch == 256 ? 400 : 120) {
                let item = uuid(round, n, 3)
                lines.append(commandLine("CreateItem", id: uuid(round, n, 4), data: ["item": item, "name": "Item \(round)-\(n)"]))
                if n % 3 == 0 {
                    lines.append("{\"type\":\"AddItemToList\",\"id\":\"\(uuid(round, n, 5))\",\"data\":{\"list\":\"\(uuid(0, 1, 2))\",\"item\":\"\(item)\",\"quantity\":2}}")
                }
                if n % 5 == 0 {
                    // a command of several events: relocations and the deletion of a location
                    let location = uuid(round, n, 6)
                    lines.append(commandLine("CreateLocation", id: uuid(round, n, 7), data: ["location": location, "name": "Aisle \(round)-\(n)"]))
                    lines.append(commandLine("RelocateItem", id: uuid(round, n, 8), data: ["item": item, "location": location]))
                    lines.append(commandLine("DeleteLocation", id: uuid(round, n, 9), data: ["location": location]))
                }
            }
            appender.send(lines)
            // Let it write for a random moment, then kill it without warning.
            let acks = appender.acknowledgements(waitingFor: Int.random(in: 1...60, using: &rng), timeout: 5)
            usleep(UInt32.random(in: 0...3_000, using: &rng))
            appender.kill()
            for (command, seqs) in acks { acknowledged[command] = seqs }
            if acks.count < lines.count { killsMidWrite += 1 }

            let before = Scratch.bytes(journal)
            let reopened = try Journal.open(path: journal)
            if let torn = reopened.recoveredTornTail {
                tornTails += 1
                #expect(Scratch.bytes(torn.backupPath) == Array(before[torn.offset...]), "the torn bytes are kept")
            }
            reopened.close()
            let report = try JournalVerifier.verify(path: journal)
            #expect(report.ok, "round \(round): \(String(describing: report.failure))")
            let events = try JournalReader.readAll(path: journal)
            #expect(events.map(\.seq) == Array(1...events.count), "no seq repeats or gaps")
            let written = Dictionary(grouping: events, by: { $0.command.description }).mapValues { $0.map(\.seq) }
            for (command, seqs) in acknowledged {
                #expect(written[command] == seqs, "round \(round): acknowledged \(command) at \(seqs) is \(String(describing: written[command]))")
            }
        }
        #expect(acknowledged.count > 300)
        print("crash: 50 rounds, \(killsMidWrite) killed while writing, \(acknowledged.count) acknowledged commands, 0 lost, \(tornTails) torn tails backed up and cut")
    }
}
