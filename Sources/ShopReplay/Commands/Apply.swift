import Foundation
import ShopEvents

/// Opens a journal for writing; a journal this run created and left empty is removed again,
/// so a failed run leaves nothing behind.
final class Writer {
    let journal: Journal
    private let created: Bool
    private let path: String

    init(path: String, actor: String, wait: Double = 5) throws(JournalError) {
        created = !FileManager.default.fileExists(atPath: path)
        self.path = path
        do {
            journal = try Journal.open(path: path, options: .init(actor: actor, device: "shop-replay", lockTimeout: wait))
        } catch {
            if created { unlink(path); unlink(path + ".lock") }
            throw error
        }
    }

    func close() {
        let empty = journal.head.seq == 0
        journal.close()
        if created, empty {
            unlink(path)
            unlink(path + ".lock")
        }
    }

    static var defaultActor: String {
        ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "shop-replay"
    }
}

struct Apply: ToolCommand {
    static let name = "apply"
    static let summary = "execute commands (one JSON object a line) from a file or stdin"
    static let help = """
    Usage: shop-replay apply [FILE|-] [--actor NAME] [--batch N] [--journal PATH] [--json]

    Reads commands, one JSON object a line, from FILE or standard input, and
    answers one line for each: ok with the seqs written, or the error with its
    code. A command is
      {"type": "AddItemToList", "id": UUID?, "actor": NAME?, "at": TIME?,
       "expectedSeq": SEQ?, "correlation": UUID?, "data": {...}}
    A rejected command writes nothing; the others are written. A command id
    already in the journal writes nothing again and answers with the first
    result. Exit code 1 if any command was rejected.

    Options:
      --actor NAME     who issues commands that name no actor (default: $USER)
      --batch N        commands per write and fsync (default 1000 from a file,
                       1 from standard input so that each answer comes at once)
      --wait SECONDS   how long to wait for another writer to finish (default 5)
    \(JournalOptions.help)

    Example:
      echo '{"type":"CreateList","data":{"name":"Weekly"}}' | shop-replay apply --actor ana
    """

    var input: String?
    var actor: String
    var batch: Int?
    var wait: Int
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        actor = try arguments.option("--actor", "NAME") ?? Writer.defaultActor
        batch = try arguments.number("--batch", "N", in: 1...100_000)
        wait = try arguments.number("--wait", "SECONDS", in: 0...3600) ?? 5
        input = arguments.positional()
        guard Limits.actorLength.contains(actor.count) else { throw UsageError(message: "--actor must be 1 to 100 characters") }
    }

    func run() throws -> Int32 {
        let handle: FileHandle
        if let input, input != "-" {
            guard let file = FileHandle(forReadingAtPath: input) else {
                throw ToolFailure(message: "cannot read commands from \(input): no such file, or not readable", exitCode: 3)
            }
            handle = file
        } else {
            handle = FileHandle.standardInput
        }
        let perBatch = batch ?? (input == nil || input == "-" ? 1 : 1000)
        let writer = try Writer(path: options.journal, actor: actor, wait: Double(wait))
        defer { writer.close() }
        let out = Output(json: options.json)
        var rejected = 0
        var pending: [(line: Int, request: CommandEnvelope)] = []
        var lineNumber = 0

        func flush() throws {
            let results = try writer.journal.execute(batch: pending.map(\.request))
            for ((_, request), result) in zip(pending, results) {
                switch result {
                case let .success(outcome):
                    report(ok: outcome.command, seqs: outcome.seqs, retry: outcome.isRetry)
                case let .failure(violation):
                    rejected += 1
                    report(failed: request.id, code: violation.code, message: violation.message)
                }
            }
            pending.removeAll()
        }
        func report(ok command: CommandID, seqs: [Int], retry: Bool) {
            if options.json {
                out.emitLine(.object([("ok", true), ("command", .string(command.description)), ("seqs", .array(seqs.map(JSONValue.int)))]
                                     + (retry ? [("retry", true)] : [])))
            } else {
                out.line("ok        \(command)  seq \(seqs.map(String.init).joined(separator: ","))\(retry ? "  (already applied)" : "")")
            }
        }
        func report(failed command: CommandID?, code: String, message: String) {
            if options.json {
                out.emitLine(.object([("ok", false), ("command", .optional(command?.description)),
                                      ("error", .object([("code", .string(code)), ("message", .string(message))]))]))
            } else {
                out.line("rejected  \(command?.description ?? "(no id)")  \(code): \(message)")
            }
        }

        var reader = LineReader(handle)
        while let bytes = try reader.next() {
            lineNumber += 1
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                var request = try CommandCodec.decode(bytes, ids: .random)
                if request.id == nil { request.id = CommandID() }
                pending.append((lineNumber, request))
            } catch {
                try flush()
                rejected += 1
                report(failed: nil, code: error.code, message: "line \(lineNumber): \(error.message)")
                continue
            }
            if pending.count >= perBatch { try flush() }
        }
        try flush()
        return rejected == 0 ? 0 : 1
    }
}

/// Lines of a file or pipe, as they arrive.
struct LineReader {
    /// No command is longer than this.
    static let maxLine = 1 << 20
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var done = false
    private var number = 0

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() throws(ToolFailure) -> [UInt8]? {
        number += 1
        while true {
            if buffer.count > Self.maxLine, buffer.prefix(Self.maxLine + 1).firstIndex(of: 0x0A) == nil {
                throw ToolFailure(message: "input line \(number) is longer than 1 MiB without a newline; a command is never that long, so this is not a command file", exitCode: 3)
            }
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            if done {
                if buffer.isEmpty { return nil }
                defer { buffer.removeAll() }
                return buffer
            }
            // read(2), not FileHandle.readData(ofLength:): on a pipe that waits for the whole length,
            // and a command must be answered as soon as its line has arrived.
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = read(handle.fileDescriptor, &chunk, chunk.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { done = true } else { buffer += chunk[0..<n] }
        }
    }
}
