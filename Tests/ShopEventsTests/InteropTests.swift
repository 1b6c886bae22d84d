import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Programs that are not ShopEvents read and lock the journal the same way.
@Suite struct InteropTests {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("output").path
        let child = try ChildProcess(executable, arguments, stdout: .file(output), stderr: .file(output + ".err"))
        let status = child.waitForExit()
        return (status, String(decoding: Scratch.bytes(output) + Scratch.bytes(output + ".err"), as: UTF8.self))
    }

    static let checker = #"""
    import hashlib, json, sys
    path = sys.argv[1]
    data = open(path, "rb").read()
    assert data.endswith(b"\n"), "the journal ends with a newline"
    lines = data[:-1].split(b"\n")
    prev = "0" * 64
    for number, line in enumerate(lines, 1):
        event = json.loads(line.decode("utf-8"))
        assert event["seq"] == number, f"line {number}: seq {event['seq']}"
        assert event["prev"] == prev, f"line {number}: prev {event['prev']} != {prev}"
        assert event["v"] in (1, 2) and isinstance(event["data"], dict)
        assert list(event)[:5] == ["seq", "id", "type", "v", "at"], list(event)
        prev = hashlib.sha256(line).hexdigest()
    print(f"{len(lines)} {prev}")
    """#

    @Test func pythonVerifiesSeqAndTheHashChain() throws {
        guard let python = Self.python else {
            print("skipped: no python3 on this machine")
            return
        }
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        var generator = RandomCommands(seed: 11)
        for _ in 0..<300 { _ = try? journal.execute(generator.next(for: journal.state)) }
        let head = journal.head
        journal.close()
        let script = fixture.folder.appendingPathComponent("check.py").path
        try Self.checker.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try run(python, [script, fixture.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(head.seq) \(head.hash)")
    }

    @Test func jqReadsEveryLine() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/jq") else {
            print("skipped: no jq on this machine")
            return
        }
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        let result = try run("/usr/bin/jq", ["-r", "select(.type == \"ItemCreated\") | .data.name", fixture.path])
        #expect(result.status == 0)
        #expect(result.output == "Milk\nBread\nKäse 🧀 \"Gouda\"\n")
    }

    static let holder = #"""
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1] + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    print("locked", flush=True)
    sys.stdin.read()
    """#

    @Test func anotherProcessHoldingTheLockMakesWritersFailWithItsPid() throws {
        guard let python = Self.python else {
            print("skipped: no python3 on this machine")
            return
        }
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        let holder = try ChildProcess(python, ["-c", Self.holder, fixture.path], stdin: .pipe, stdout: .pipe)
        defer { holder.closeInput(); holder.waitForExit() }
        var ready = [UInt8](repeating: 0, count: 16)
        _ = read(holder.output, &ready, ready.count)   // "locked"
        let before = fixture.bytes()
        let error = try #require(throws: JournalError.self) { try fixture.open(lockTimeout: 0.3) }
        #expect(error.reason == .locked)
        #expect(error.message.contains("process \(holder.pid)"), "\(error.message)")
        #expect(fixture.bytes() == before)
        holder.closeInput()
        holder.waitForExit()
        #expect(try fixture.open().head.seq == 12, "the lock is free once the holder is gone")
    }
}
