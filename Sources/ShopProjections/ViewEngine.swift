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
    private let folding: ViewFolding<HouseholdViews>

    public var journalPath: String { folding.journalPath }
    public var snapshotPath: String { ViewSnapshot.path(forJournal: journalPath) }
    /// Why a snapshot was not used, if it was not.
    public var warnings: [String] { folding.warnings }
    /// Where the views came from: the snapshot's `seq`, if one was used.
    public var snapshotSeq: Int? { folding.snapshotSeq }

    /// An engine whose views every view can be built from (every purchase's
    /// record kept). A snapshot saved without the records (`shop-replay
    /// snapshot` without `--with-records`) is not used, with a warning.
    public init(journalPath: String, useSnapshot: Bool = true, verifyChain: Bool = true) {
        folding = ViewFolding(journalPath: journalPath, useSnapshot: useSnapshot, verifyChain: verifyChain)
    }

    public var views: HouseholdViews { folding.views }
    public var position: JournalPosition { folding.position }

    /// Brings the views up to `stop` and returns them. The first call starts
    /// from the snapshot if it is good and not beyond `stop`.
    @discardableResult
    public func refresh(to stop: ReplayStop = .end) throws(JournalError) -> HouseholdViews {
        try folding.refresh(to: stop)
    }

    /// Writes the current views to `<journal>.snapshot` (atomically: a
    /// temporary file, `fsync`, rename), with every purchase's record.
    public func saveSnapshot() throws(JournalError) {
        try folding.saveSnapshot()
    }

    /// The views of a journal as of `stop`, every purchase's record kept
    /// (every view can be built from them), and any warnings: a one-shot read.
    public static func views(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             verifyChain: Bool = true) throws(JournalError) -> (HouseholdViews, [String]) {
        try HouseholdViews.read(journal: path, asOf: stop, useSnapshot: useSnapshot, verifyChain: verifyChain)
    }
}

/// Keeps one fold of a journal up to date, from a snapshot when there is a
/// good one: ``HouseholdViews`` for ``ViewEngine``, or one of the folds the
/// command line reads one view from (`ViewFolds.swift`), each of which reads
/// from a snapshot the projections it holds.
package final class ViewFolding<Fold: StateFold> {
    package let journalPath: String
    package private(set) var warnings: [String] = []
    package private(set) var snapshotSeq: Int?
    private var replayer: Replayer<Fold>
    private let useSnapshot: Bool
    private var started = false
    /// Whether the snapshot is read in whole ahead (an engine that lives on)
    /// or its pages are let go once checked (a one-shot read; see `ViewSnapshot.load`).
    private let residentSnapshot: Bool
    /// Reads the fold from a snapshot: nil for a fold that is never saved nor read (``SettledViews``).
    private let loadSnapshot: ((_ journal: String, _ resident: Bool) -> Result<(Fold, JournalPosition), ViewSnapshot.Problem>)?

    /// A fold never read from a snapshot (``SettledViews``).
    package init(neverFromSnapshot journalPath: String, verifyChain: Bool = true) {
        let journalPath = JournalPath.absolute(journalPath)
        self.journalPath = journalPath
        useSnapshot = false
        residentSnapshot = false
        loadSnapshot = nil
        replayer = Replayer(path: journalPath, verifyChain: verifyChain)
    }

    package init(journalPath: String, useSnapshot: Bool = true, verifyChain: Bool = true, resident: Bool = true) where Fold: SnapshotFold {
        let journalPath = JournalPath.absolute(journalPath)
        self.journalPath = journalPath
        self.useSnapshot = useSnapshot
        residentSnapshot = resident
        loadSnapshot = { journal, resident in ViewSnapshot.load(Fold.self, journal: journal, resident: resident) }
        replayer = Replayer(path: journalPath, verifyChain: verifyChain)
    }

    package var views: Fold { replayer.value }
    package var position: JournalPosition { replayer.position }

    /// Brings the fold up to `stop` and returns it. The first call starts
    /// from the snapshot if it is good and not beyond `stop`.
    @discardableResult
    package func refresh(to stop: ReplayStop = .end) throws(JournalError) -> Fold {
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


    /// Starts from the snapshot, if there is one that is good, this fold can
    /// read, and not beyond `stop`; says why not otherwise.
    func startFromSnapshot(before stop: ReplayStop) {
        guard let loadSnapshot, FileManager.default.fileExists(atPath: ViewSnapshot.path(forJournal: journalPath)) else { return }
        switch loadSnapshot(journalPath, residentSnapshot) {
        case let .failure(problem):
            warnings.append("ignored the snapshot \(ViewSnapshot.path(forJournal: journalPath)): \(problem.description); the views were rebuilt from the journal")
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

    /// Starts the fold anew from the journal's first line with `value`, keeping the warnings so far.
    func restart(with value: consuming Fold) {
        replayer = Replayer(path: journalPath, value: value, verifyChain: replayer.verifyChain)
        started = true
    }

    /// Keeps ``refresh(to:)`` from looking for a snapshot: it was looked for already.
    func markStarted() { started = true }

    /// Lets go of the fold (the caller keeps its copy): its storage is then not shared.
    func letGo() { replayer = Replayer(path: journalPath) }
}

extension ViewFolding where Fold: SavedFold {
    /// Writes the fold to `<journal>.snapshot` (atomically: a temporary file, `fsync`, rename).
    package func saveSnapshot() throws(JournalError) {
        try ViewSnapshot.save(views, position: position, journal: journalPath)
    }
}

extension SnapshotFold {
    /// The fold of a journal as of `stop`, and any warnings: a one-shot read
    /// (a snapshot's pages let go once read). Implemented by each fold for its
    /// own type, so the fold loop is compiled for it (see ``read(journal:asOf:useSnapshot:verifyChain:)``).
    static func oneShot(journal path: String, asOf stop: ReplayStop, useSnapshot: Bool,
                        verifyChain: Bool) throws(JournalError) -> (Self, [String]) {
        let folding = ViewFolding<Self>(journalPath: path, useSnapshot: useSnapshot, verifyChain: verifyChain, resident: false)
        let views = try folding.refresh(to: stop)
        return (views, folding.warnings)
    }
}

// Each fold's one-shot read, written for its own type: called from another module, a generic
// function runs unspecialised (each event folded through the protocol), these do not.
extension HouseholdViews {
    package static func read(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             verifyChain: Bool = true) throws(JournalError) -> (HouseholdViews, [String]) {
        try oneShot(journal: path, asOf: stop, useSnapshot: useSnapshot, verifyChain: verifyChain)
    }
}
extension StatisticsViews {
    package static func read(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             verifyChain: Bool = true) throws(JournalError) -> (StatisticsViews, [String]) {
        try oneShot(journal: path, asOf: stop, useSnapshot: useSnapshot, verifyChain: verifyChain)
    }
}
extension StateViews {
    package static func read(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             verifyChain: Bool = true) throws(JournalError) -> (StateViews, [String]) {
        try oneShot(journal: path, asOf: stop, useSnapshot: useSnapshot, verifyChain: verifyChain)
    }
}
extension PresentViews {
    package static func read(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             verifyChain: Bool = true) throws(JournalError) -> (PresentViews, [String]) {
        try oneShot(journal: path, asOf: stop, useSnapshot: useSnapshot, verifyChain: verifyChain)
    }
}

extension SettledViews {
    /// The totals the statistics show, read once to the end of the journal,
    /// and any warnings. From a good snapshot, the statistics projection
    /// (``StatisticsViews``) read from it; without one, the journal's reverts
    /// are found first (``RevertScan``) and the fold is ``SettledViews``:
    /// memory by the household, not its history. If the journal turns out to
    /// revert other purchases than found, it is folded again with the
    /// statistics projection: the statistics are the same either way. For
    /// showing once, not for a snapshot or for more events.
    package static func readTotals(journal path: String, useSnapshot: Bool = true,
                                   verifyChain: Bool = true) throws(JournalError) -> (any TotalsFold, [String]) {
        let folding = ViewFolding<StatisticsViews>(journalPath: path, useSnapshot: useSnapshot, verifyChain: verifyChain, resident: false)
        if useSnapshot { folding.startFromSnapshot(before: .end) }
        if folding.snapshotSeq == nil, let reverted = RevertScan.revertedPurchases(journal: path) {
            let settling = ViewFolding<SettledViews>(neverFromSnapshot: path, verifyChain: verifyChain)
            // Made where the replayer takes them, from the scan's set consumed: neither the set nor a
            // second reference to the fold's table of reverts outlives this line (one would be copied
            // whole the first time the fold changes it).
            settling.restart(with: SettledViews(reverting: consume reverted))
            var views = try settling.refresh()
            if views.settled.isSettled {
                let warnings = folding.warnings + settling.warnings
                settling.letGo()   // the folding's copy of the views goes
                views.dropForesight()
                return (views, warnings)
            }
        }
        folding.markStarted()
        return (try folding.refresh(), folding.warnings)
    }
}
