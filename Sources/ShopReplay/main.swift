import Foundation
import ShopEvents

/// One subcommand of `shop-replay`: it owns its options, its help text and
/// its run. Parsing (`init`) is separate from doing (`run`).
protocol ToolCommand: Sendable {
    static var name: String { get }
    /// One line for `shop-replay --help`.
    static var summary: String { get }
    /// Usage and options for `shop-replay NAME --help`.
    static var help: String { get }
    init(_ arguments: inout Arguments) throws
    /// Returns the exit code: 0 success, 1 verification failed or a command was rejected.
    func run() throws -> Int32
}

extension ToolCommand {
    /// Parses the arguments and runs: the one entry point `Tool` calls.
    static func parseAndRun(_ arguments: inout Arguments) throws -> Int32 {
        let parsed = try Self(&arguments)
        try arguments.finish()
        return try parsed.run()
    }
}

enum Tool {
    static let commands: [any ToolCommand.Type] = [
        Demo.self, SyncDemo.self, Apply.self, ViewCommand.self, Audit.self, Stats.self, History.self, Verify.self, Repair.self,
        ImportSL17.self, ExportSL17.self, Snapshot.self, Report.self, Clone.self, SyncCommand.self, Hub.self, Bench.self,
    ]

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        return """
        shop-replay — replay, query and audit a ShopEvents journal

        Usage: shop-replay <command> [--journal PATH] [--json] [options]

        Commands:
        \(commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }.joined(separator: "\n"))

        The journal is --journal PATH, else $SHOP_JOURNAL, else ./shop.ndjson.
        Exit codes: 0 success, 1 verification failed or a command was rejected,
        2 usage error, 3 I/O or other failure.
        Run `shop-replay <command> --help` for a command's options.
        """
    }

    /// Positions (from 0, after the program's name) of arguments that are not
    /// valid UTF-8: Swift would quietly replace their bytes with U+FFFD.
    static func invalidUTF8Arguments() -> Set<Int> {
        var invalid = Set<Int>()
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index] else { continue }
            if String(validatingCString: raw) == nil { invalid.insert(index - 1) }
        }
        return invalid
    }

    static func main(_ words: [String], invalidUTF8: Set<Int> = []) -> Int32 {
        if let bad = invalidUTF8.min() {
            let isActor = words[bad].hasPrefix("--actor=") || (bad > 0 && words[bad - 1] == "--actor")
            fail(isActor
                 ? ": invalid_actor: the --actor given is not valid UTF-8; name the actor in UTF-8 text"
                 : ": argument \(bad + 1) is not valid UTF-8 text; nothing was done")
            return 2
        }
        guard let first = words.first, first != "--help", first != "-h", first != "help" else {
            if words.count >= 2, words[0] == "help", let command = commands.first(where: { $0.name == words[1] }) {
                print(command.help)
            } else {
                print(overview)
            }
            return words.isEmpty ? 2 : 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            fail(": unknown command \"\(first)\"; the commands are \(commands.map { $0.name }.joined(separator: ", ")). See shop-replay --help")
            return 2
        }
        var arguments = Arguments(Array(words.dropFirst()), command: command.name)
        if arguments.flag("--help") || arguments.flag("-h") {
            print(command.help)
            return 0
        }
        do {
            return try command.parseAndRun(&arguments)
        } catch {
            return report(error, in: command.name)
        }
    }

    /// One line on standard error for any failure, and its exit code.
    static func report(_ error: any Error, in name: String) -> Int32 {
        if let usage = error as? UsageError {
            fail("\(name): \(usage.message)\nSee shop-replay \(name) --help")
            return 2
        }
        if let failure = error as? ToolFailure {
            fail("\(name): \(failure.message)")
            return failure.exitCode
        }
        if let journal = error as? JournalError {
            fail("\(name): \(describe(journal))")
            return 3
        }
        if let violation = error as? RuleViolation {
            fail("\(name): rejected — \(violation.code): \(violation.message)")
            return 1
        }
        if let shop = error as? any ShopError {
            fail("\(name): \(shop.code): \(shop.message)")
            return 3
        }
        fail("\(name): \(error)")
        return 3
    }

    static func describe(_ error: JournalError) -> String {
        switch error.reason {
        case .notFound: return "\(error.message) (give --journal PATH or set SHOP_JOURNAL)"
        case .replica: return "\(error.code): \(error.message); `shop-replay apply` puts commands in the outbox, `shop-replay sync` sends them"
        case .corruptLine:
            return "the journal is damaged or is not a ShopEvents journal: \(error.message). What next: `shop-replay verify` names the first bad line; restore the journal from a copy (or a device's replica)"
        default: return "\(error.code): \(error.message)"
        }
    }

    /// `message` after the program's name: a command's name (`view: …`), or `: …` where no command is concerned.
    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("shop-replay\(message.hasPrefix(":") ? "" : " ")\(message)\n".utf8))
    }
}

// A file-size limit must make write() fail with EFBIG, which the journal reports
// and recovers from, rather than kill the process with SIGXFSZ.
signal(SIGXFSZ, SIG_IGN)
exit(Tool.main(Array(CommandLine.arguments.dropFirst()), invalidUTF8: Tool.invalidUTF8Arguments()))
