import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The household's hub (docs/SYNC.md): it holds the canonical journal,
/// orders everything, and answers one request at a time.
///
/// A pull reads the journal without the lock and sends whole commands only;
/// a push takes the writer's lock, folds what others appended, decides the
/// commands in order, and makes the accepted ones durable with one `fsync`
/// (a command id it already has is answered from its record). Many hubs —
/// one process a device, as `shop-replay hub` runs — can serve one journal at once.
///
/// ```swift
/// let hub = SyncHub(journal: "/srv/home.ndjson", as: "ben")
/// let answer = hub.respond(to: .hello(protocol: 1, device: "ben-phone", actor: "ben"))
/// let bytes = hub.respond(toLine: Array(#"{"pull":{"after":0,"hash":"\#(String(repeating: "0", count: 64))"}}"#.utf8))
/// ```
public final class SyncHub {
    public let path: String
    /// With `--as`: a pushed command naming another actor is `forbidden`; one naming none gets this one.
    public let actor: String?
    /// At most this many lines in one pull's answer (a command is never split).
    public var linesPerPull = 10_000
    /// A hosted household's id: the first command of its new journal must create it (`wrong_household`).
    public let hosting: HouseholdID?
    private let options: Journal.Options
    /// The journal file: its head and pulls read without the lock, pushes under the writer's lock.
    private let file: HubJournalFile

    /// Whether a push may create the journal when there is none at ``path``
    /// (a new hub, asked for on purpose). Without it every request is
    /// answered `no_journal`: a mistyped path is never taken for a new, empty hub.
    public let createsJournal: Bool

    /// `hosting`: the household a hosted hub keeps in this journal, whose first command must create it.
    public init(journal path: String, as actor: String? = nil, options: Journal.Options = .init(), createsJournal: Bool = false,
                hosting: HouseholdID? = nil) {
        self.path = JournalPath.absolute(path)
        self.actor = actor
        self.hosting = hosting
        self.options = options
        self.createsJournal = createsJournal
        file = HubJournalFile(path: path, options: options)
    }

    /// Whether the hub's journal is there: a new hub (``createsJournal``) has none until its first push.
    public var hasJournal: Bool { access(path, F_OK) == 0 }

    /// One request's answer; never throws: every failure is an `error` answer.
    /// `actor`, if given, plays ``actor`` for this request alone (a hosted
    /// hub's token names the actor of each request); else ``actor`` holds.
    public func respond(to request: SyncRequest, as actor: String? = nil) -> SyncResponse {
        guard createsJournal || hasJournal else {
            return .error(SyncFailure(code: "no_journal", message: "the hub has no journal at \(path): the path is wrong, or the journal was moved or deleted (a new hub must be asked for on purpose)"))
        }
        do {
            switch request {
            case let .hello(version, _, _):
                if let refusal = HubRules.helloRefusal(protocol: version) { return refusal }
                let (household, head) = try file.householdAndHead()
                return HubRules.hello(household: household, head: head)
            case let .pull(after, hash):
                return try pull(after: after, hash: hash)
            case let .push(commands):
                return try push(commands, as: actor ?? self.actor)
            }
        } catch let failure as SyncFailure {
            return .error(failure)
        } catch let error as any ShopError {
            return .error(SyncFailure(code: error.code, message: error.message))
        } catch {
            return .error(SyncFailure(code: "io_error", message: "\(error)"))
        }
    }

    /// One request line (without its newline) in, the answer's bytes out.
    public func respond(toLine line: [UInt8]) -> [UInt8] {
        do {
            return SyncWire.encode(respond(to: try SyncWire.decodeRequest(line)))
        } catch {
            return SyncWire.encode(SyncResponse.error(error))
        }
    }

    /// Answers requests from `input` on `output` until the end of input: one
    /// answer a request, written whole at once. A line over the size limit
    /// is refused (`bad_request`) and skipped; serving goes on.
    public func serve(input: Int32, output: Int32) throws {
        var reader = DescriptorLines(fd: input, maxLine: SyncWire.maxRequestBytes)
        while let next = try reader.next() {
            let answer: [UInt8]
            switch next {
            case let .line(bytes): answer = respond(toLine: bytes)
            case let .tooLong(length):
                answer = SyncWire.encode(SyncResponse.error(.badRequest("the request is \(length) bytes or more; at most \(SyncWire.maxRequestBytes) are taken")))
            }
            try DescriptorLines.writeAll(answer, to: output)
        }
    }

    // MARK: Push

    /// Decided by ``HubRules`` under the writer's lock, on the journal as others left it; one `fsync`.
    private func push(_ commands: [CommandEnvelope], as actor: String?) throws -> SyncResponse {
        // The wire refuses such a push already; an app may hand one to `respond(to:)` itself.
        if let refusal = HubRules.refusal(ofPush: commands) { return .error(refusal) }
        let rules = HubRules(household: hosting, defaultActor: options.actor, device: options.device, linesPerPull: linesPerPull)
        let clock = options.clock, ids = options.ids
        let decided = try file.appendDecided(ids: commands.compactMap(\.id)) { fold, known, claim in
            rules.push([HubRules.Push(commands: commands, actor: actor)], on: consume fold, known: known, now: clock.now, ids: ids, claim: claim)
        }
        return .results(decided.results.first ?? [])
    }

    // MARK: Pull

    private func pull(after: Int, hash: SHA256Digest) throws -> SyncResponse {
        let found = try file.lines(after: after, page: linesPerPull)
        if case .noJournal = found.after { return HubRules.diverged(after: after, hash: hash, hub: .noJournal) ?? .lines([], more: false) }
        if after == 0, let refusal = HubRules.diverged(after: 0, hash: hash, hub: .missing) { return refusal }
        if let refusal = HubRules.diverged(after: after, hash: hash, hub: found.after) { return refusal }
        var page = HubRules.Page(limit: linesPerPull)
        for line in found.lines where !page.add(line) { break }
        // A command whose lines are not all there yet (a writer mid-write) is left for the next pull.
        return .lines(page.wholeLines, more: page.full)
    }
}

/// Lines read from a descriptor (a pipe), each at most `maxLine` bytes.
struct DescriptorLines {
    enum Next { case line([UInt8]), tooLong(Int) }

    let fd: Int32
    let maxLine: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false

    init(fd: Int32, maxLine: Int) { self.fd = fd; self.maxLine = maxLine }

    /// The next line without its newline; `nil` at the end of the stream (a
    /// last line without a newline counts as a line).
    mutating func next() throws(JournalError) -> Next? {
        var skipping = 0
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if skipping > 0 { return .tooLong(skipping + line.count) }
                return line.count > maxLine ? .tooLong(line.count) : .line(line)
            }
            if buffer.count - start > maxLine {
                // Too long: drop what is here and the rest of the line as it comes.
                skipping += buffer.count - start
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            if eof {
                guard start < buffer.count else { return skipping > 0 ? .tooLong(skipping) : nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return skipping > 0 ? .tooLong(skipping + line.count) : .line(line)
            }
            if start > 0, start * 2 >= buffer.count {
                buffer.removeFirst(start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw JournalError.io("read", "fd \(fd)")
            }
            if n == 0 { eof = true } else { buffer.append(contentsOf: chunk[0..<n]) }
        }
    }

    /// Writes all of `bytes` (write(2) until done): one answer, at once.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(JournalError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.nonEmptyBase + done, $0.count - done) }   // done < count: not empty
            if n < 0 {
                if errno == EINTR { continue }
                throw JournalError.io("write", "fd \(fd)")
            }
            done += n
        }
    }
}
