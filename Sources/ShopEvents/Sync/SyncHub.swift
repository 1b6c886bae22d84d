import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The household's hub (SPEC section 7): it holds the canonical journal,
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
    private var journal: SharedJournal?
    /// Where the last line served ends, and its hash: the next pull usually starts there.
    private var served: (seq: Int, end: Int, hash: SHA256Digest)?

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
    }

    /// Whether the hub's journal is there: a new hub (``createsJournal``) has none until its first push.
    public var hasJournal: Bool { access(path, F_OK) == 0 }

    deinit { journal?.close() }

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
                let (household, head) = try householdAndHead()
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

    private func openJournal() throws(JournalError) -> SharedJournal {
        if let journal { return journal }
        let opened = try SharedJournal.open(path: path, options: options)
        journal = opened
        return opened
    }

    /// The household (created by the first event: every other command needs
    /// it) and the last whole line's seq and hash — read from the two ends of
    /// the file, without the lock and without reading the history between.
    private func householdAndHead() throws -> (HouseholdID?, JournalHead) {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            guard errno == ENOENT else { throw JournalError.io("open", path) }
            return (nil, .empty)
        }
        defer { _ = Posix.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.io("stat", path) }
        var first = JournalLines(fd: fd, path: path)
        guard let line = try first.next() else { return (nil, .empty) }
        var household: HouseholdID?
        if case let .event(recorded)? = try? EventLineCodec.decodeLine(line.bytes),
           case let .householdCreated(id, _, _, _) = recorded.event { household = id }
        // The last whole line: read back from the end, a larger block each time, until it is all in.
        let size = Int(info.st_size)
        var block = 1 << 16
        while true {
            let from = max(0, size - block)
            var tail = [UInt8](repeating: 0, count: size - from)
            guard tail.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, $0.count, off_t(from)) }) == tail.count else {
                throw JournalError.io("read", path)
            }
            guard let end = tail.lastIndex(of: 0x0A) else {
                if from == 0 { return (household, .empty) }
                block *= 4
                continue
            }
            guard let before = tail[..<end].lastIndex(of: 0x0A) ?? (from == 0 ? -1 : nil) else {
                block *= 4
                continue
            }
            let last = Array(tail[(before + 1)..<end])
            guard let envelope = last.withUnsafeBytes({ EventLineCodec.envelope($0) }) else {
                throw JournalError.corrupt(line: 0, offset: from + before + 1, "the hub's last line is not an event")
            }
            return (household, JournalHead(seq: envelope.seq, hash: SHA256.hash(last)))
        }
    }

    // MARK: Push

    /// Decided by ``HubRules`` under the writer's lock, on the journal as others left it; one `fsync`.
    private func push(_ commands: [CommandEnvelope], as actor: String?) throws -> SyncResponse {
        // The wire refuses such a push already; an app may hand one to `respond(to:)` itself.
        if let refusal = HubRules.refusal(ofPush: commands) { return .error(refusal) }
        let rules = HubRules(household: hosting, defaultActor: options.actor, device: options.device, linesPerPull: linesPerPull)
        let clock = options.clock, ids = options.ids
        let decided = try openJournal().appendDecided(ids: commands.compactMap(\.id)) { fold, known, claim in
            rules.push([HubRules.Push(commands: commands, actor: actor)], on: consume fold, known: known, now: clock.now, ids: ids, claim: claim)
        }
        return .results(decided.results.first ?? [])
    }

    // MARK: Pull

    private func pull(after: Int, hash: SHA256Digest) throws -> SyncResponse {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            guard errno == ENOENT else { throw JournalError.io("open", path) }
            return HubRules.diverged(after: after, hash: hash, hub: .noJournal) ?? .lines([], more: false)
        }
        defer { _ = Posix.close(fd) }
        if after == 0, let refusal = HubRules.diverged(after: 0, hash: hash, hub: .missing) { return refusal }
        // Start where the last pull ended if it ended at `after`; else read up to line `after`.
        var start = (offset: 0, line: 1)
        if after > 0 {
            if let served, served.seq == after {
                if let refusal = HubRules.diverged(after: after, hash: hash, hub: .hash(served.hash)) { return refusal }
                start = (served.end, after + 1)
            } else {
                var lines = JournalLines(fd: fd, path: path)
                var found = HubRules.LineAfter.missing
                while let line = try lines.next() {
                    guard line.number == after else { continue }
                    found = .hash(SHA256.hash(line.bytes))
                    break
                }
                if let refusal = HubRules.diverged(after: after, hash: hash, hub: found) { return refusal }
                start = (lines.consumedOffset, after + 1)
            }
        }
        guard lseek(fd, off_t(start.offset), SEEK_SET) == off_t(start.offset) else { throw JournalError.io("seek", path) }
        var lines = JournalLines(fd: fd, path: path, startOffset: start.offset, firstLineNumber: start.line)
        var page = HubRules.Page(limit: linesPerPull)
        var end = start.offset
        while let line = try lines.next(), page.add(Array(line.bytes)) {
            if page.endsCommand { end = lines.consumedOffset }
        }
        // A command whose lines are not all there yet (a writer mid-write) is left for the next pull.
        let out = page.wholeLines
        if let last = out.last {
            served = (after + out.count, end, SHA256.hash(last))
        }
        return .lines(out, more: page.full)
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
