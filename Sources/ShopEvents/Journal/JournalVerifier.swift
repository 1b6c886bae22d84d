import Foundation

/// What `verify` found.
public struct VerificationReport: Hashable, Sendable {
    /// Lines that passed every check, from the first.
    public var events: Int
    /// The audit head of those lines.
    public var head: JournalHead
    /// The first problem: a bad line, a torn tail, or a head that does not match.
    public var failure: JournalError?
    /// What a crash left at the end, if that is the only problem: what `repair --fix` cuts.
    public var tornTail: TornTail?
    /// The first line a newer version of ShopEvents wrote, if any; the chain
    /// was checked over it and every line after it.
    public var newerLine: NewerLineFound?

    /// A last line without its newline, empty lines at the end, or the lines
    /// of a command at the end that has fewer lines than its `commandEvents`
    /// (and any torn bytes after them).
    public struct TornTail: Hashable, Sendable {
        /// The number of the first line to cut.
        public var line: Int
        public var offset: Int
        /// Bytes to cut, to the end of the file.
        public var length: Int
        /// Complete lines of an incomplete command among them (0 for a torn line alone).
        public var commandLines: Int
        /// Empty lines that end the file (white space only); 0 for a torn line or command.
        public var emptyLines = 0
    }

    public var ok: Bool { failure == nil }
}

/// Checks a whole journal: every line is JSON with the right keys, `seq` is
/// contiguous, the `prev` chain holds, every type is known, `at` never goes
/// back, and every event is legal given those before it. Optionally checks
/// that a recorded audit head is still a prefix of the history.
///
/// ```swift
/// let report = try JournalVerifier.verify(path: "shop.ndjson", expecting: JournalHead("1200:9f86d08…"))
/// print(report.ok ? "ok \(report.head)" : report.failure!.message)
/// ```
public enum JournalVerifier {
    /// Throws only when the journal cannot be read at all; damage is in the report.
    public static func verify(path: String, expecting expected: JournalHead? = nil) throws(JournalError) -> VerificationReport {
        // A large journal is read and decoded on a second thread while this one checks the chain and the
        // rules. That path reports only a journal that verifies whole; anything else is checked again,
        // on one thread, for the exact report (the line to blame, a torn tail, a newer line).
        if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size >= prefetchAbove,
           let report = verifyWhole(path: path, expecting: expected) {
            return report
        }
        return try verifyOneThread(path: path, expecting: expected)
    }

    /// A journal of at least this many bytes is verified on two threads.
    package static var prefetchAbove: Int { 4 << 20 }

    /// On two threads: the report of a journal whose every complete line
    /// verifies — whatever its end holds (a torn line, a command cut short,
    /// lines a newer version wrote) and whether or not the expected head is
    /// in it — else `nil`.
    package static func verifyWhole(path: String, expecting expected: JournalHead?) -> VerificationReport? {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        // Ends with what follows the last newline, or that not every line could be read, decoded and checked.
        let lines = BatchChannel<DecodedLine, ReadEnd>()
        let producer = Thread {
            defer { Posix.close(fd) }
            lines.finish(readAll(fd: fd, path: path, into: lines))
        }
        producer.name = "ShopEvents.verify \(path)"
        producer.start()
        // While the first lines are read: the journal's reverts and late purchases (a byte search), so
        // that the rules need keep only the purchases reverted and the deleted items bought late, and no
        // other deleted item or place or ended trip; the reading thread checks instead that nothing the
        // journal creates has an id used before (see `JournalChain.dropHistory(keeping:)`).
        var chain = JournalChain()
        if let forecast = RevertScan.forecast(journal: path, lateItems: true) { chain.dropHistory(keeping: forecast) }
        chain.checkRules = true
        chain.keepsIDs = false   // the reading thread checks ids (by their fingerprints)
        chain.newerLines = .checkChainOnly
        var expectedFound = expected.map { $0.seq == 0 && $0.hash == .zero } ?? true
        var healthy = true
        consuming: while let batch = lines.take() {
            // By index, each line read where it lies: `for item in batch` copied every line out.
            for index in batch.indices {
                do throws(JournalError) {
                    try chain.accept(batch[index].line, lineHash: { batch[index].hash }, number: batch[index].number, offset: batch[index].offset)
                } catch {
                    healthy = false
                    break consuming
                }
                if let expected, chain.head.seq == expected.seq {
                    guard chain.head.hash == expected.hash else { healthy = false; break consuming }
                    expectedFound = true
                }
            }
        }
        lines.stop()
        let end = lines.waitForEnd()
        guard healthy, end.whole else { return nil }
        return report(chain, failure: nil, trailing: end.trailing, consumedOffset: end.consumedOffset,
                      expected: expected, expectedFound: expectedFound)
    }

    /// How the reading thread ended: whether every complete line was read,
    /// decoded and its ids found as they must be; and what follows the last newline.
    private struct ReadEnd: Sendable {
        var whole: Bool
        var trailing: JournalLines.Trailing?
        var consumedOffset: Int
        static let broken = ReadEnd(whole: false, trailing: nil, consumedOffset: 0)
    }

    /// The reading thread: reads, decodes and hashes every line into `lines`,
    /// and checks that no event id is used twice and that the events of each
    /// command stand together (which needs nothing the checker folds, so it is
    /// done here, where there is time to spare). Whether every line decoded,
    /// every id was as it must be, and what follows the last newline;
    /// not whole also when the checker stopped first.
    ///
    /// It also checks that every id the events create (of the household,
    /// places, items, lists, purchases, trips) is new: the checker's state
    /// keeps no deleted thing and only the purchases reverted, so it cannot
    /// tell an id used before.
    ///
    /// The ids are checked by their 64-bit fingerprints (``Fingerprints``),
    /// eight bytes an id, sorted a run at a time and merged at the end, only
    /// a run of each in memory: all distinct proves the ids distinct. A
    /// repeated fingerprint — an id used again, a command whose events stand
    /// apart, or, once in billions of journals, two ids that share one —
    /// makes the end not whole, and the journal is verified again on one
    /// thread, which checks the ids themselves and names the line.
    private static func readAll(fd: Int32, path: String, into lines: BatchChannel<DecodedLine, ReadEnd>) -> ReadEnd {
        var reading = JournalLines(fd: fd, path: path)
        var batch: [DecodedLine] = []
        batch.reserveCapacity(BatchChannel<DecodedLine, ReadEnd>.batchSize)
        // Full runs are written beside the journal, to a file without a name (else to the temporary directory).
        let besides = (path as NSString).deletingLastPathComponent
        let folder = besides.isEmpty ? "." : besides
        var eventIDs = Fingerprints(unnamedIn: folder), commandIDs = Fingerprints(unnamedIn: folder)
        var createdIDs = Fingerprints(unnamedIn: folder)
        var waiting = WaitingLine()
        var lastCommand: CommandID?
        do throws(JournalError) {
            while let line = try reading.next() {
                guard let decoded = try? EventLineCodec.decodeLine(line.bytes) else { return .broken }
                let (id, command): (EventID, CommandID)
                switch decoded {
                case let .event(recorded):
                    (id, command) = (recorded.id, recorded.command)
                    addCreated(by: recorded.event, to: &createdIDs)
                case let .newer(envelope): (id, command) = (envelope.id, envelope.command)
                }
                eventIDs.add(id)
                if command != lastCommand {
                    commandIDs.add(command)
                    lastCommand = command
                }
                // Hashed two at a time (``SHA256/hash(_:_:extensions:)``): a line waits, its bytes copied, for the next.
                // Each decoded line is moved (`consume`) from here into the batch, never copied.
                var second = DecodedLine(line: consume decoded, hash: .zero, number: line.number, offset: line.offset)
                guard var first = waiting.take() else {
                    waiting.hold(consume second, bytes: line.bytes)
                    continue
                }
                (first.hash, second.hash) = waiting.hashWith(line.bytes)
                batch.append(consume first)
                batch.append(consume second)
                if batch.count >= BatchChannel<DecodedLine, ReadEnd>.batchSize {
                    guard lines.put(batch) else { return .broken }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if var last = waiting.take() {
                last.hash = waiting.hashAlone()
                batch.append(last)
            }
            if !batch.isEmpty, !lines.put(batch) { return .broken }
            // While the checker folds the last batches: every id once, every command's events together.
            let whole = reading.consumedOffset + (reading.trailing?.bytes.count ?? 0) == (try? size(fd)) ?? -1
                && eventIDs.allDistinct() && commandIDs.allDistinct() && createdIDs.allDistinct()
            return ReadEnd(whole: whole, trailing: reading.trailing, consumedOffset: reading.consumedOffset)
        } catch {
            return .broken
        }
    }

    /// Adds the id new to the journal that `event` gives, if it gives one (its
    /// declaration's new-id field): the ids that ``ShopState/isUsed(_:)`` knows, in one namespace as there.
    private static func addCreated(by event: Event, to created: inout Fingerprints) {
        if let id = event.newID { created.add(ItemID(id)) }   // the fingerprint is the UUID's, whatever its kind
    }

    private static func size(_ fd: Int32) throws -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.io("stat", "fd \(fd)") }
        return Int(info.st_size)
    }

    /// On one thread, with the full report of whatever is wrong.
    package static func verifyOneThread(path: String, expecting expected: JournalHead?) throws(JournalError) -> VerificationReport {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw JournalError(.notFound, "there is no journal at \(path)") }
            throw JournalError.io("open", path)
        }
        defer { Posix.close(fd) }
        var lines = JournalLines(fd: fd, path: path)
        var chain = JournalChain()
        chain.checkRules = true
        chain.newerLines = .checkChainOnly
        var failure: JournalError?
        var expectedFound = expected.map { $0.seq == 0 && $0.hash == .zero } ?? true
        do throws(JournalError) {
            try chain.accept(all: &lines) { head, offset throws(JournalError) in
                guard let expected, head.seq == expected.seq else { return }
                guard head.hash == expected.hash else {
                    throw JournalError(.corruptLine, "line \(expected.seq) (byte offset \(offset)) is not the line recorded in the head \(expected): the history up to it was changed", line: expected.seq, offset: offset)
                }
                expectedFound = true
            }
        } catch {
            guard error.reason == .corruptLine else { throw error }
            failure = error
        }
        return report(chain, failure: failure, trailing: lines.trailing, consumedOffset: lines.consumedOffset,
                      expected: expected, expectedFound: expectedFound)
    }

    /// The report once every complete line was accepted, or `failure` stopped
    /// the chain: then the end of the file decides it (a torn line, a command
    /// cut short, a line a newer version wrote), and whether the expected
    /// head was found. One thread and two give the same report through it.
    private static func report(_ chain: JournalChain, failure: JournalError?, trailing: JournalLines.Trailing?, consumedOffset: Int,
                               expected: JournalHead?, expectedFound: Bool) -> VerificationReport {
        var failure = failure
        var torn: VerificationReport.TornTail?
        var good = chain.head
        let end = consumedOffset + (trailing?.bytes.count ?? 0)
        if failure != nil {
            // A line blamed through the one after it was accepted before its change showed.
            if failure?.line.map({ $0 <= chain.head.seq }) == true { good = chain.previousHead }
        } else if let newer = chain.firstNewer {
            failure = JournalError(newer.error.reason, "\(newer.error.message). The hash chain holds over it and the lines after it (to seq \(chain.head.seq), head \(chain.head)); only a newer ShopEvents can check their rules", line: newer.line, offset: newer.offset)
            good = newer.headBefore
        } else if let tail = trailing, let problem = JournalChain.notATornWrite(tail.bytes) {
            failure = JournalError(.corruptLine, "line \(chain.head.seq + 1) (byte offset \(tail.offset)): \(problem)", line: chain.head.seq + 1, offset: tail.offset)
        } else if let open = chain.openCommand {
            torn = VerificationReport.TornTail(line: open.line, offset: open.offset, length: end - open.offset, commandLines: open.have)
            failure = JournalError(.corruptLine, "line \(open.line) (byte offset \(open.offset)): command \(open.command) declares \(open.expected) events (commandEvents) but the journal ends after \(open.have) of them\(trailing == nil ? "" : " and a torn line") — a crash cut it short, and it was never acknowledged", line: open.line, offset: open.offset)
            good = open.headBefore
        } else if let tail = trailing {
            torn = VerificationReport.TornTail(line: chain.head.seq + 1, offset: tail.offset, length: tail.bytes.count, commandLines: 0,
                                               emptyLines: tail.emptyLines)
            let what = tail.emptyLines > 0
                ? "\(tail.emptyLines) empty line\(tail.emptyLines == 1 ? "" : "s") at the end (\(tail.bytes.count) bytes) — no journal line is empty: an editor or `echo >>` added them"
                : "\(tail.bytes.count) bytes without a newline at the end — a torn write"
            failure = JournalError(.corruptLine, "line \(chain.head.seq + 1) (byte offset \(tail.offset)): \(what)", line: chain.head.seq + 1, offset: tail.offset)
        }
        if failure == nil, let expected, !expectedFound {
            failure = JournalError(.corruptLine, "the recorded head \(expected) is not in this history: it ends at seq \(chain.head.seq), so it was truncated", line: chain.head.seq + 1, offset: consumedOffset)
        }
        return VerificationReport(events: good.seq, head: good, failure: failure, tornTail: torn, newerLine: chain.firstNewer)
    }
}

/// A line decoded and hashed on the reading thread, for the checking one.
/// A decoded line that waits for the next to be hashed with it, and a copy
/// of its bytes (the reader's buffer moves on).
private struct WaitingLine: ~Copyable {
    private var line: DecodedLine?
    private var bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 10, alignment: 16)
    private var count = 0

    deinit { bytes.deallocate() }

    mutating func hold(_ line: consuming DecodedLine, bytes source: UnsafeRawBufferPointer) {
        if source.count > bytes.count {
            bytes.deallocate()
            bytes = .allocate(byteCount: max(source.count, bytes.count * 2), alignment: 16)
        }
        if let base = source.baseAddress { bytes.nonEmptyBase.copyMemory(from: base, byteCount: source.count) }
        count = source.count
        self.line = consume line
    }

    /// The line waiting, if one is; its bytes stay for ``hashWith(_:)`` or ``hashAlone()``.
    mutating func take() -> DecodedLine? { line.take() }

    /// The digests of the waiting line's bytes and of `other`.
    func hashWith(_ other: UnsafeRawBufferPointer) -> (SHA256Digest, SHA256Digest) {
        SHA256.hash(UnsafeRawBufferPointer(rebasing: bytes[..<count]), other)
    }

    func hashAlone() -> SHA256Digest { SHA256.hash(UnsafeRawBufferPointer(rebasing: bytes[..<count])) }
}

private struct DecodedLine: Sendable {
    var line: JournalLine
    var hash: SHA256Digest
    var number: Int
    var offset: Int
}
