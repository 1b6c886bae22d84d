import Foundation
import ShopEvents

struct Verify: ToolCommand {
    static let name = "verify"
    static let summary = "check every line, the hash chain and the rules; print the audit head"
    static let help = """
    Usage: shop-replay verify [--expect-head SEQ:HASH] [--journal PATH] [--json]

    Checks every line of the journal: JSON and its keys, contiguous seq, the
    prev hash chain, known event types, time never going back, and that every
    event is legal given the events before it. Prints the number of events and
    the audit head (SEQ:HASH); on failure names the first bad line, its byte
    offset and why, and exits with 1.

    Options:
      --expect-head SEQ:HASH   also check that this recorded head is still a
                               prefix of the history (detects truncation and edits)
    \(JournalOptions.help)
    """

    var expected: JournalHead?
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        if let text = try arguments.option("--expect-head", "SEQ:HASH") {
            guard let head = JournalHead(text) else {
                throw UsageError(message: "--expect-head expects SEQ:HASH, the seq and 64 hex digits that verify printed, not \"\(text)\"")
            }
            expected = head
        }
    }

    func run() throws -> Int32 {
        // The journal named by its absolute path, as every other command names it in what it prints.
        let report = try JournalVerifier.verify(path: JournalPath.absolute(options.journal), expecting: expected)
        let out = Output(json: options.json)
        if options.json {
            var pairs: [(String, JSONValue)] = [
                ("ok", .bool(report.ok)), ("events", .int(report.events)),
                ("head", .object([("seq", .int(report.head.seq)), ("hash", .string(report.head.hash.hex))])),
            ]
            if let failure = report.failure {
                pairs.append(("error", .object([("line", .optional(failure.line)), ("offset", .optional(failure.offset)),
                                                ("reason", .string(failure.message))])))
            }
            out.emit(.object(pairs))
        } else if let failure = report.failure {
            out.line("FAILED: \(failure.message)")
            out.line("\(Format.count(report.events, "event")) before it verify; their head is \(report.head)")
            out.line(Self.whatNext(report, failure: failure))
        } else {
            out.line("ok: \(Format.count(report.events, "event")) verify; audit head \(report.head)")
            if let expected { out.line("the recorded head \(expected) is part of this history") }
        }
        return report.ok ? 0 : 1
    }
}

extension Verify {
    /// One "What next", for the damage found.
    static func whatNext(_ report: VerificationReport, failure: JournalError) -> String {
        let before = Format.count(report.events, "event")
        if let torn = report.tornTail {
            let what = torn.emptyLines > 0 ? "the empty lines" : torn.commandLines > 0 ? "the incomplete command's lines" : "the torn bytes"
            return "What next: `shop-replay repair --fix` keeps a copy of \(what) and cuts them, as the next write would; the \(before) before them stay."
        }
        if report.newerLine != nil {
            return "What next: nothing is wrong with the journal; update ShopEvents, which checks those lines too. Until then this build reads and writes nothing past them."
        }
        if failure.line == nil {
            return "What next: the journal was not changed. It is not the history that head was recorded from (cut back or edited): compare it with a copy or a device's replica."
        }
        return "What next: the journal was not changed. Restore it from a copy (or a device's replica), or keep the \(before) before the bad line by copying them to a new journal."
    }
}
