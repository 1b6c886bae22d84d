import Foundation

/// Why the journal could not be opened, read or written.
///
/// ```swift
/// do {
///     _ = try Journal.open(path: "shop.ndjson")
/// } catch {                                       // `open` throws only JournalError
///     if error.reason == .corruptLine { print("line \(error.line!), byte \(error.offset!): \(error.message)") }
/// }
/// ```
public struct JournalError: ShopError, Hashable {
    /// What went wrong; the raw value is the stable ``code``.
    public enum Reason: String, Sendable, CaseIterable {
        /// Another process holds the writer's lock.
        case locked = "journal_locked"
        /// A line is not a valid event, breaks the `seq`, `prev`, `at` or command rules.
        case corruptLine = "corrupt_line"
        /// The journal's own chain snapshot records a later head than the file holds: lines were cut off.
        case shorterThanKnownHead = "journal_shorter_than_known_head"
        /// The file does not exist (readers do not create it).
        case notFound = "journal_not_found"
        /// A system call failed: open, read, write, fsync, truncate.
        case io = "io_error"
        /// The journal was closed, or a failed write left it unusable until reopened.
        case closed = "journal_closed"
        /// A line holds a newer schema version (`v`) of an event type than this version reads.
        case unsupportedVersion = "unsupported_version"
        /// A line holds an event type this version does not know: a newer ShopEvents wrote it.
        case unknownEventType = "unknown_event_type"
        /// A journal was to be created where a file already is.
        case exists = "journal_exists"
        /// The journal is a sync replica (`<journal>.sync` is there): only sync writes it;
        /// commands go to its outbox (``Replica``).
        case replica = "journal_is_replica"
    }

    public var reason: Reason
    public var message: String
    /// 1-based line number of a corrupt line.
    public var line: Int?
    /// Byte offset from the start of the file where the fault is.
    public var offset: Int?

    public init(_ reason: Reason, _ message: String, line: Int? = nil, offset: Int? = nil) {
        self.reason = reason; self.message = message; self.line = line; self.offset = offset
    }

    public var code: String { reason.rawValue }

    static func io(_ operation: String, _ path: String, errno code: Int32 = errno) -> JournalError {
        JournalError(.io, "\(operation) \(path) failed: \(String(cString: strerror(code))) (errno \(code))")
    }

    static func corrupt(line: Int, offset: Int, _ why: String) -> JournalError {
        JournalError(.corruptLine, "line \(line) (byte offset \(offset)): \(why); the journal was not changed", line: line, offset: offset)
    }
}
