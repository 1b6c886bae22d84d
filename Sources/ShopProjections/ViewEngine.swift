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
    /// Whether the snapshot is read in whole ahead (an engine that lives on)
    /// or its pages are let go once checked (a one-shot read; see `ViewSnapshot.load`).
    private var residentSnapshot = true

    /// An engine whose views every view can be built from (every purchase's
    /// record kept). A snapshot saved without the records (`shop-replay
    /// snapshot` without `--with-records`) is not used, with a warning.
    public convenience init(journalPath: String, useSnapshot: Bool = true, verifyChain: Bool = true) {
        self.init(journalPath: journalPath, useSnapshot: useSnapshot, verifyChain: verifyChain, history: .records)
    }

    /// `history` less than `.records` folds only what some views use (see
    /// ``HouseholdViews/init(history:)``): the package's one-view reads. A
    /// good snapshot saved at that depth or a greater one is used (lowered to
    /// this depth); one saved at a lesser depth is not, with a warning.
    package init(journalPath: String, useSnapshot: Bool = true, verifyChain: Bool = true, history: PurchaseHistory.Depth) {
        let journalPath = JournalPath.absolute(journalPath)
        self.journalPath = journalPath
        self.useSnapshot = useSnapshot
        replayer = Replayer(path: journalPath, value: HouseholdViews(history: history), verifyChain: verifyChain)
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
        try noteWhatWasNotRead()
        return replayer.value
    }

    /// Says why the views end where they do, when it is not simply the end of
    /// the journal; refuses bytes at the end that no writer could have left.
    private func noteWhatWasNotRead() throws(JournalError) {
        if let newer = replayer.stoppedBeforeNewer {
            let warning = "the views stop before line \(newer.line): \(newer.envelope.type) v\(newer.envelope.version) was written by a newer ShopEvents, so they show the household as of seq \(newer.line - 1); update ShopEvents to see the rest"
            if !warnings.contains(warning) { warnings.append(warning) }
            return
        }
        let (bytes, command) = replayer.unfinishedTail
        let line = replayer.position.seq + 1
        if let bytes, let problem = JournalReader.whyNotATornWrite(bytes) {
            throw JournalError(.corruptLine, "line \(line) (byte offset \(replayer.position.offset)): \(problem)\(line == 1 ? "; the file holds no complete journal line at all" : "")", line: line, offset: replayer.position.offset)
        }
        if let command {
            warnings.append("line \(command.line) begins a command of \(command.of) events of which only \(command.lines) are written: a write in progress, or one a crash cut short, which the next write cuts; the views leave it out")
        } else if let bytes, let count = JournalLines.emptyLines(bytes) {
            warnings.append("line \(line) (byte offset \(replayer.position.offset)) and after: \(count) empty line\(count == 1 ? "" : "s") at the end, which an editor or `echo >>` adds, and the next write cuts; the views leave them out")
        } else if let bytes {
            warnings.append("line \(line) (byte offset \(replayer.position.offset)) has \(bytes.count) bytes and no newline yet: a write in progress, or a torn write, which the next write cuts; the views leave it out")
        }
    }

    private func startFromSnapshot(before stop: ReplayStop) {
        guard FileManager.default.fileExists(atPath: snapshotPath) else { return }
        let wanted = replayer.value.historyDepth
        switch ViewSnapshot.load(journal: journalPath, asEntries: wanted == .entries, resident: residentSnapshot) {
        case let .failure(problem):
            warnings.append("ignored the snapshot \(snapshotPath): \(problem.description); the views were rebuilt from the journal")
        case let .success((saved, position)):
            guard let views = saved.lowered(to: wanted) else {
                warnings.append("ignored the snapshot \(snapshotPath): it holds the purchase history at depth \(saved.historyDepth), these views need \(wanted); the views were rebuilt from the journal")
                return
            }
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
    /// temporary file, `fsync`, rename), at their depth: a snapshot of views
    /// folded at `.totals` is household-sized but cannot serve `.records`.
    public func saveSnapshot() throws(JournalError) {
        try ViewSnapshot.save(views, position: position, journal: journalPath)
    }

    /// The views the statistics need (`.totals`), read once to the end of
    /// the journal, and any warnings. From a good snapshot as
    /// ``views(journal:asOf:useSnapshot:verifyChain:history:)`` reads them;
    /// without one, the journal's reverts are found first (``RevertScan``)
    /// and the fold keeps no purchase and no deleted item or ended trip
    /// (``HouseholdViews/init(settling:)``): memory by the household, not
    /// its history. If the journal turns out to revert other purchases than
    /// found, it is folded again the plain way: the statistics are the same
    /// either way. The views are for showing once, not for a snapshot or
    /// for more events.
    package static func settledViews(journal path: String, useSnapshot: Bool = true,
                                     verifyChain: Bool = true) throws(JournalError) -> (HouseholdViews, [String]) {
        let engine = ViewEngine(journalPath: path, useSnapshot: useSnapshot, verifyChain: verifyChain, history: .totals)
        engine.residentSnapshot = false
        engine.started = true
        if useSnapshot { engine.startFromSnapshot(before: .end) }
        if engine.snapshotSeq == nil, let reverted = RevertScan.revertedPurchases(journal: path) {
            let warnings = engine.warnings
            // Made where the replayer takes them, from the scan's set consumed: neither the set nor a
            // second reference to the views' table of reverts outlives this line (one would be copied
            // whole the first time the fold changes it).
            engine.replayer = Replayer(path: path, value: HouseholdViews(settling: consume reverted), verifyChain: verifyChain)
            var views = try engine.refresh()
            if views.history.isSettled {
                let warnings = engine.warnings
                engine.replayer = Replayer(path: path)   // the engine's copy of the views goes
                views.dropForesight()
                return (views, warnings)
            }
            engine.warnings = warnings
            engine.replayer = Replayer(path: path, value: HouseholdViews(history: .totals), verifyChain: verifyChain)
        }
        return (try engine.refresh(), engine.warnings)
    }

    /// The views of a journal as of `stop`, every purchase's record kept
    /// (every view can be built from them), and any warnings: a one-shot read.
    public static func views(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             verifyChain: Bool = true) throws(JournalError) -> (HouseholdViews, [String]) {
        try views(journal: path, asOf: stop, useSnapshot: useSnapshot, verifyChain: verifyChain, history: .records)
    }

    /// The views of a journal as of `stop` at `history`'s depth, and any warnings: a one-shot read.
    package static func views(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                              verifyChain: Bool = true, history: PurchaseHistory.Depth) throws(JournalError) -> (HouseholdViews, [String]) {
        let engine = ViewEngine(journalPath: path, useSnapshot: useSnapshot, verifyChain: verifyChain, history: history)
        engine.residentSnapshot = false
        let views = try engine.refresh(to: stop)
        return (views, engine.warnings)
    }
}
