import Foundation
import ShopEvents

/// Opening a journal for writing from the tool: the library creates it under
/// the writer's lock and, on close, discards it only if this run created it
/// and left it empty. A torn tail cut on opening is said on standard error.
enum ToolJournal {
    static func open(_ path: String, actor: String, wait: Double = 5) throws(JournalError) -> Journal {
        let journal = try Journal.open(path: path, options: options(actor: actor, wait: wait))
        sayRecovery(path: journal.path, journal.recoveredTornTail)
        return journal
    }

    static func options(actor: String, wait: Double) -> Journal.Options {
        Journal.Options(actor: actor, device: "shop-replay", lockTimeout: wait)
    }

    /// A torn tail, an unfinished command or empty lines that opening cut, said on standard error.
    static func sayRecovery(path: String, _ recovery: Journal.TornTailRecovery?) {
        if let recovery {
            Tool.fail("warning: \(path): \(recovery.emptyLines > 0 ? "it ended with empty lines" : "a crash had left its end unfinished"); \(recovery.summary)")
        }
    }

    /// `--actor`, else the actor a hosted hub's replica at `journal` was
    /// enrolled as (its `J.sync`), else $USER, checked by the actor rule.
    /// With none there is no one to record as the writer: refused, never made up.
    static func actor(_ arguments: inout Arguments, journal: String? = nil) throws(UsageError) -> String {
        guard let actor = try optionalActor(&arguments, journal: journal) else {
            throw UsageError(message: "who is this? there is no --actor and $USER is not set: give --actor NAME (the name recorded as who wrote each command); nothing was written")
        }
        return actor
    }

    /// The same, `nil` where there is none: `apply` then writes only the commands that name their own actor.
    static func optionalActor(_ arguments: inout Arguments, journal: String? = nil) throws(UsageError) -> String? {
        let enrolled = journal.flatMap(SyncSettings.enrolledActor(journal:))
        guard let actor = try arguments.option("--actor", "NAME") ?? enrolled ?? userName else { return nil }
        do { try Limits.checkActor(actor) } catch {
            throw UsageError(message: "--actor: \(error.code): \(error.message)")
        }
        return actor
    }

    /// $USER, where it is set.
    static var userName: String? {
        ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func recoveryJSON(_ recovery: Journal.TornTailRecovery) -> JSONValue {
        .object([("line", .int(recovery.line)), ("offset", .int(recovery.offset)), ("length", .int(recovery.length)),
                 ("commandLines", .int(recovery.commandLines)), ("emptyLines", .int(recovery.emptyLines)), ("backup", .string(recovery.backupPath))])
    }
}

struct Apply: ToolCommand {
    static let name = "apply"
    static let summary = "execute commands (one JSON object a line) from a file or stdin"
    static var help: String {
        let width = CommandType.allCases.map(\.rawValue.count).max() ?? 0
        let types = CommandType.allCases.map { type in
            "  \(type.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))  \(CommandCatalog.fields(of: type).joined(separator: ", "))"
        }.joined(separator: "\n")
        let fields = Self.fieldNames
            .map { "  \($0.padding(toLength: 12, withPad: " ", startingAt: 0)) \(CommandCatalog.describe(field: $0))" }.joined(separator: "\n")
        return """
        Usage: shop-replay apply [FILE|-] [--actor NAME] [--batch N] [--wait SECONDS] [--journal PATH] [--json]

        Reads commands, one JSON object a line, from FILE or standard input, and
        answers one line for each as soon as it is decided: ok with the seqs
        written and the ids of what it created, or the error with its code. A command is
          {"type": "AddItemToList", "id": UUID?, "actor": NAME?, "at": TIME?,
           "expectedSeq": SEQ?, "correlation": UUID?, "data": {...}}
        A rejected command writes nothing; the others are written. A command id
        already in the journal writes nothing again and answers with the first
        result, even if a name it uses names nothing now. A rejection names the
        line's command id when it has one. Exit code 1 if any command was rejected.

        Command types and their data fields (? = optional; the id of a thing
        being created may be left out and a new one is made):
        \(types)

        ChangeItemDetails is a patch (a JSON merge patch): a field left out keeps
        its value, a field given as null is cleared, an empty text is none.
          {"type":"ChangeItemDetails","data":{"item":"Milk","notes":"oat","unitPrice":null}}
        changes Milk's notes, clears its price and keeps its category, unit, barcode…
        An "at" more than 5 minutes after this machine's clock, or a purchasedAt
        more than 24 hours after the command's at, is in_future; a command id
        already used by a command of another type is id_reused.

        Fields:
        \(fields)
        item, list and location may name a live thing instead of giving its id
        ("item": "milk"); RestoreList and PurgeList name a deleted list by its
        last name. The journal always records ids.

        Who may do what: a household with no members is open, and every actor
        may issue every command. AddMember closes it (the issuer becomes an
        owner first). Then:
          owner    every command
          member   every command but AddMember, ChangeMemberRole, PurgeList,
                   and RemoveMember of anyone but itself (leaving)
          viewer   no command
          others   no command (not_a_member)
        A household always keeps an owner (last_owner).

        Options:
          --actor NAME     who issues commands that name no actor (default: on a
                           replica a hosted hub enrolled, its actor; else $USER;
                           with none, only commands that name their own actor
                           are written, the others rejected: missing_actor)
          --batch N        commands per write and fsync (default 1000 from a file,
                           1 from standard input so that each answer comes at once)
          --wait SECONDS   how long each write waits for another writer (default 5);
                           apply holds the writer's lock only while it writes
        \(JournalOptions.help)

        Examples:
          echo '{"type":"CreateList","data":{"name":"Weekend"}}' | shop-replay apply --actor ana
          echo '{"type":"AddItemToList","data":{"list":"Weekend","item":"Milk","quantity":2}}' | shop-replay apply
          echo '{"type":"PurchaseItem","data":{"item":"Milk","list":"Weekend"}}' | shop-replay apply --json
        """
    }

    /// Every data field of every command, once, in the order the command types first name them.
    static var fieldNames: [String] {
        var names: [String] = []
        for type in CommandType.allCases {
            for field in CommandCatalog.fields(of: type) {
                let name = field.trimmingCharacters(in: CharacterSet(charactersIn: "?"))
                if !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    var input: String?
    /// Who issues the commands that name no actor; with none, those are refused (`missing_actor`).
    var actor: String?
    var batch: Int?
    var wait: Int
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        actor = try ToolJournal.optionalActor(&arguments, journal: options.journal)
        batch = try arguments.number("--batch", "N", in: 1...100_000)
        wait = try arguments.number("--wait", "SECONDS", in: 0...3600) ?? 5
        input = arguments.positional()
    }

    func run() throws -> Int32 {
        let handle = try inputHandle()
        let perBatch = batch ?? (input == nil || input == "-" ? 1 : 1000)
        // Opening may come with the first command written: what it cut is said with the next answer.
        let recovery = ApplySession.Recovery()
        let target = try CommandWriter(path: options.journal, options: ToolJournal.options(actor: actor ?? "", wait: Double(wait))) { journal in
            ToolJournal.sayRecovery(path: journal.path, journal.recoveredTornTail)
            recovery.json = journal.recoveredTornTail.map(ToolJournal.recoveryJSON)
        }
        defer { target.close() }
        let session = ApplySession(target: target, out: Output(json: options.json), json: options.json, actor: actor, recovery: recovery)
        var reader = LineReader(handle)
        var lineNumber = 0
        while let next = reader.next() {
            lineNumber += 1
            switch next {
            case let .line(bytes):
                try session.read(bytes, lineNumber: lineNumber)
                if session.pending.count >= perBatch { try session.flush() }
            case let .tooLong(length):
                // Answered in its turn, after the commands before it; the run goes on.
                try session.flush()
                session.rejectedLine(nil, "line_too_long", "line \(lineNumber) is \(length) bytes; a command is at most \(LineReader.maxLine) bytes, so it was skipped")
            }
        }
        try session.flush()
        return session.rejected == 0 ? 0 : 1
    }

    /// The file of commands, or standard input.
    private func inputHandle() throws -> FileHandle {
        guard let input, input != "-" else { return FileHandle.standardInput }
        var folder: ObjCBool = false
        if FileManager.default.fileExists(atPath: input, isDirectory: &folder), folder.boolValue {
            // Read, a folder would end at once: nothing applied, and no error said.
            throw ToolFailure(message: "cannot read commands from \(input): it is a folder, not a file of commands; nothing was written", exitCode: 3)
        }
        guard let file = FileHandle(forReadingAtPath: input) else {
            throw ToolFailure(message: "cannot read commands from \(input): no such file, or not readable", exitCode: 3)
        }
        return file
    }
}

/// Lines of a file or pipe, as they arrive.
struct LineReader {
    /// No command is longer than this.
    static let maxLine = 1 << 20
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var done = false
    /// Bytes of an over-long line dropped so far, while it is skipped to its newline.
    private var skipped: Int?

    enum Next {
        case line([UInt8])
        /// A line longer than ``LineReader/maxLine``: skipped to its newline (or the end), never held whole.
        case tooLong(length: Int)
    }

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() -> Next? {
        while true {
            if let dropped = skipped {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    buffer.removeSubrange(...newline)
                    skipped = nil
                    return .tooLong(length: dropped + newline)
                }
                let total = dropped + buffer.count
                buffer.removeAll(keepingCapacity: true)
                skipped = done ? nil : total
                if done { return .tooLong(length: total) }
            } else if let newline = buffer.firstIndex(of: 0x0A) {
                guard newline <= Self.maxLine else {
                    buffer.removeSubrange(...newline)
                    return .tooLong(length: newline)
                }
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return .line(line)
            } else if buffer.count > Self.maxLine {
                skipped = 0
                continue
            } else if done {
                if buffer.isEmpty { return nil }
                defer { buffer.removeAll() }
                return .line(buffer)
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
