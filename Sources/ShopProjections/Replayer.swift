import Foundation
import ShopEvents

/// Feeds a projection from a journal: catches up from where it stands,
/// picks up new events as a writer appends them, and stops at any `seq` or time.
///
/// ```swift
/// let replayer = Replayer<HouseholdViews>(path: "shop.ndjson")
/// try replayer.catchUp(to: .seq(500))     // the household as of event 500
/// try replayer.catchUp()                  // … and now up to date
/// ```
///
/// It reads without the writer's lock and never sees a half-written line.
public final class Replayer<P: Projection> {
    public let path: String
    public private(set) var value: P
    /// After the last event applied.
    public private(set) var position: JournalPosition
    /// Check each line's `prev` (and hash every line) while reading.
    public let verifyChain: Bool
    /// Set when reading stopped before a line a newer version of ShopEvents
    /// wrote: ``value`` is the household as of the line before it.
    public private(set) var stoppedBeforeNewer: NewerLineFound?
    /// What the last catch-up found after the last complete command: bytes of
    /// a line without its newline, and a command not all of whose lines are there.
    public private(set) var unfinishedTail: (bytes: [UInt8]?, command: (line: Int, offset: Int, lines: Int, of: Int)?) = (nil, nil)

    /// A catch-up to the end with at least this many bytes to read decodes on other threads while this one folds (see ``JournalReader``'s prefetching).
    package static var prefetchAbove: Int { 4 << 20 }

    public init(path: String, value: P = P(), position: JournalPosition = .start, verifyChain: Bool = true) {
        self.path = JournalPath.absolute(path)
        self.value = value
        self.position = position
        self.verifyChain = verifyChain
    }

    /// Applies the events after ``position`` up to `stop`; returns how many.
    @discardableResult
    public func catchUp(to stop: ReplayStop = .end) throws(JournalError) -> Int {
        if case let .seq(last) = stop, last <= position.seq { return 0 }
        let reader = try JournalReader(path: path, resumingAt: position, verifyChain: verifyChain)
        if case .end = stop, reader.bytesLeft >= Self.prefetchAbove {
            // A long read to the end: one thread reads, checks and decodes while this one folds.
            // Folded into a local value, not the stored property: each event applied to a class's
            // property is a dynamic exclusivity check, once an event. Swapped, not copied,
            // so no copy of the value's storage is made; swapped back whatever happens.
            var folding = P()
            swap(&folding, &value)
            defer { swap(&folding, &value) }
            let applied = try reader.readToEnd(prefetching: true) { folding.apply($0) }
            position = reader.position
            stoppedBeforeNewer = reader.newerLine
            unfinishedTail = (reader.trailingBytes, reader.heldBackCommand)
            return applied
        }
        var applied = 0
        var before = reader.position
        while let recorded = try reader.next() {
            if stop.excludes(recorded) {
                position = before
                return applied
            }
            value.apply(recorded)
            applied += 1
            before = reader.position
            if case let .seq(last) = stop, recorded.seq >= last { break }
        }
        position = reader.position
        stoppedBeforeNewer = reader.newerLine
        unfinishedTail = (reader.trailingBytes, reader.heldBackCommand)
        return applied
    }

    /// Keeps catching up every `interval` seconds while `keepGoing` says so,
    /// calling `changed` after each catch-up that applied events.
    public func follow(every interval: Double = 0.25, while keepGoing: () -> Bool, changed: (P) -> Void) throws(JournalError) {
        while keepGoing() {
            if try catchUp() > 0 { changed(value) }
            Thread.sleep(forTimeInterval: interval)
        }
    }
}
