import Foundation

/// What `verify` found.
public struct VerificationReport: Hashable, Sendable {
    /// Lines that passed every check, from the first.
    public var events: Int
    /// The audit head of those lines.
    public var head: JournalHead
    /// The first problem: a bad line, a torn tail, or a head that does not match.
    public var failure: JournalError?
    /// Bytes after the last newline, if that is the only problem: what `repair --fix` cuts.
    public var tornTail: TornTail?

    /// A last line without its newline.
    public struct TornTail: Hashable, Sendable {
        /// The number that line would have.
        public var line: Int
        public var offset: Int
        public var length: Int
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
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw JournalError(.notFound, "there is no journal at \(path)") }
            throw JournalError.io("open", path)
        }
        defer { Posix.close(fd) }
        var lines = JournalLines(fd: fd, path: path)
        var chain = JournalChain()
        chain.checkRules = true
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
        var torn: VerificationReport.TornTail?
        if failure == nil, let tail = lines.trailing {
            torn = VerificationReport.TornTail(line: chain.head.seq + 1, offset: tail.offset, length: tail.bytes.count)
            failure = JournalError(.corruptLine, "line \(chain.head.seq + 1) (byte offset \(tail.offset)): \(tail.bytes.count) bytes without a newline at the end — a torn write; `shop-replay repair` shows it and `repair --fix` cuts it", line: chain.head.seq + 1, offset: tail.offset)
        }
        if failure == nil, let expected, !expectedFound {
            failure = JournalError(.corruptLine, "the recorded head \(expected) is not in this history: it ends at seq \(chain.head.seq), so it was truncated", line: chain.head.seq + 1, offset: lines.consumedOffset)
        }
        // A line blamed through the one after it was accepted before its change showed.
        let good = failure?.line.map { $0 <= chain.head.seq } == true ? chain.previousHead : chain.head
        return VerificationReport(events: good.seq, head: good, failure: failure, tornTail: torn)
    }
}
