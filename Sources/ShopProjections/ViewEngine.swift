import Foundation
import ShopEvents

/// Keeps every view of a journal up to date, starting from a snapshot when
/// there is a good one.
///
/// A snapshot (`<journal>.snapshot`) holds the views with the `seq` and the
/// hash of the line they cover. Opening loads it, checks that the journal
/// still has that very line at that `seq`, and applies only the events after
/// it. A stale, foreign or damaged snapshot is ignored with a warning and the
/// views are rebuilt from the journal: deleting a snapshot never changes a
/// result, only the time it takes.
///
/// ```swift
/// let engine = ViewEngine(journalPath: "shop.ndjson")
/// let views = try engine.refresh()
/// print(engine.warnings)                 // [] — or why the snapshot was not used
/// try engine.saveSnapshot()
/// ```
public final class ViewEngine {
    public let journalPath: String
    public var snapshotPath: String { ViewSnapshot.path(forJournal: journalPath) }
    /// Why a snapshot was not used, if it was not.
    public private(set) var warnings: [String] = []
    /// Where the views came from: the snapshot's `seq`, if one was used.
    public private(set) var snapshotSeq: Int?
    private var replayer: Replayer<HouseholdViews>
    private let useSnapshot: Bool
    private var started = false

    public init(journalPath: String, useSnapshot: Bool = true, verifyChain: Bool = true) {
        self.journalPath = journalPath
        self.useSnapshot = useSnapshot
        replayer = Replayer(path: journalPath, verifyChain: verifyChain)
    }

    public var views: HouseholdViews { replayer.value }
    public var position: JournalPosition { replayer.position }

    /// Brings the views up to `stop` and returns them. The first call starts
    /// from the snapshot if it is good and not beyond `stop`.
    @discardableResult
    public func refresh(to stop: ReplayStop = .end) throws(JournalError) -> HouseholdViews {
        if !started {
            started = true
            if useSnapshot { startFromSnapshot(before: stop) }
        }
        try replayer.catchUp(to: stop)
        return replayer.value
    }

    private func startFromSnapshot(before stop: ReplayStop) {
        guard FileManager.default.fileExists(atPath: snapshotPath) else { return }
        switch ViewSnapshot.load(journal: journalPath) {
        case let .failure(problem):
            warnings.append("ignored the snapshot \(snapshotPath): \(problem.description); the views were rebuilt from the journal")
        case let .success((views, position)):
            switch stop {
            case .end: break
            case let .seq(last) where last < position.seq: return
            case let .time(last) where (position.lastAt ?? .earliest) > last: return
            default: break
            }
            replayer = Replayer(path: journalPath, value: views, position: position, verifyChain: replayer.verifyChain)
            snapshotSeq = position.seq
        }
    }

    /// Writes the current views to `<journal>.snapshot` (atomically: a
    /// temporary file, `fsync`, rename).
    public func saveSnapshot() throws(JournalError) {
        try ViewSnapshot.save(views, position: position, journal: journalPath)
    }

    /// The views of a journal as of `stop`, and any warnings: a one-shot read.
    public static func views(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             verifyChain: Bool = true) throws(JournalError) -> (HouseholdViews, [String]) {
        let engine = ViewEngine(journalPath: path, useSnapshot: useSnapshot, verifyChain: verifyChain)
        let views = try engine.refresh(to: stop)
        return (views, engine.warnings)
    }
}
