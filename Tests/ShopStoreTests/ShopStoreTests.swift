import Foundation
import Testing
import Observation
import ShopEvents
import ShopProjections
import ShopTestSupport

/// The ShopStoreWriter helper, next to the test runner in the build folder.
let storeWriter: String = URL(fileURLWithPath: ToolRunner.binary).deletingLastPathComponent().appendingPathComponent("ShopStoreWriter").path

func household(_ path: String) async throws -> ShopStore {
    let store = try await ShopStore(path: path, options: .init(actor: "ana", device: "test"))
    try await store.execute(.createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "UTC"))
    return store
}

/// Open file descriptors of this process.
/// This process's descriptors that concern `folder`: files in it, and inotify
/// instances watching it. (Counting every descriptor would also count those
/// that tests running alongside open and close.)
func descriptors(concerning folder: URL) -> Set<String> {
    let path = folder.resolvingSymlinksInPath().path
    var info = stat()
    guard stat(path, &info) == 0 else { return [] }
    let inode = "ino:" + String(info.st_ino, radix: 16) + " "
    var found: Set<String> = []
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)") else { continue }
        if target.hasPrefix(path) || target.hasPrefix(folder.path) {
            found.insert("\(name) \(target)")
        } else if target == "anon_inode:inotify", let watches = try? String(contentsOfFile: "/proc/self/fdinfo/\(name)", encoding: .utf8),
                  watches.contains(inode) {
            found.insert("\(name) inotify")
        }
    }
    return found
}

@Suite(.serialized) struct ShopStoreTests {
    @Test func twoTasksWriteThroughOneStore() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let store = try await household(path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<2 {
                group.addTask {
                    for n in 0..<200 {
                        try await store.execute(.createItem(item: ItemID(), name: "task \(task) item \(n)", location: nil, details: .none))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await store.head.seq == 401)
        #expect(await store.state.liveItems.count == 400)
        #expect(try JournalVerifier.verify(path: path).ok)
        // Another process may write while the store is open: the store does not hold the lock.
        let other = try Journal.open(path: path, options: .init(actor: "ben", lockTimeout: 1))
        try other.execute(.createList(list: ListID(), name: "Ben's", priority: nil))
        other.close()
        try await store.execute(.createList(list: ListID(), name: "Ana's", priority: nil))
        #expect(await store.head.seq == 403)
        #expect(await store.state.lists.values.map(\.name).sorted() == ["Ana's", "Ben's"])
        // A store opened after a snapshot starts from it, and knows the same household.
        try await store.saveSnapshot()
        await store.close()
        let reopened = try await ShopStore(path: path)
        #expect(await reopened.startedFromSnapshot == 403)
        #expect(await reopened.state.liveItems.count == 400)
    }

    /// Two processes × 1,000 commands through their own stores on one journal.
    @Test func twoProcessesWriteTheSameJournal() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let store = try await household(path)
        let outputs = ["a", "b"].map { folder.appendingPathComponent("\($0).out").path }
        let writers = try zip(["a", "b"], outputs).map { name, output in
            try ChildProcess(storeWriter, [path, name, "1000", "7"], stdout: .file(output), stderr: .file(output + ".err"))
        }
        for writer in writers { #expect(writer.waitForExit() == 0) }
        var acknowledged: [String] = []
        for output in outputs {
            acknowledged += String(decoding: Scratch.bytes(output), as: UTF8.self).split(separator: "\n").map { String($0.split(separator: " ")[1]) }
            #expect(Scratch.bytes(output + ".err").isEmpty, "\(String(decoding: Scratch.bytes(output + ".err"), as: UTF8.self))")
        }
        #expect(acknowledged.count == 2000)
        let events = try JournalReader.readAll(path: path)
        #expect(events.count == 2001)
        #expect(Set(events.dropFirst().map(\.command.description)) == Set(acknowledged), "every acknowledged command, exactly once")
        #expect(try JournalVerifier.verify(path: path).ok)
        // The first store sees both writers' events before its own next write.
        try await store.refresh()
        let reader = try JournalReader(path: path)
        while try reader.next() != nil {}
        #expect(await store.head == (try reader.head()))
        #expect(await store.state.liveItems.count == 2000)
    }

    /// Every event exactly once, in order, across 10 write bursts from another
    /// process; cancelling ends the stream and leaves no descriptor behind.
    @Test func eventsAfterDeliversEveryEventOnceAndEndsOnCancellation() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let store = try await household(path)
        let expected = 1 + 10 * 20
        let reader = Task { () throws -> [Int] in
            var seqs: [Int] = []
            for try await recorded in store.events(after: 0) {
                seqs.append(recorded.seq)
                if seqs.count == expected { break }
            }
            return seqs
        }
        let writer = try ChildProcess(storeWriter, [path, "burst", "200", "20", "50"])
        #expect(writer.waitForExit() == 0)
        let seqs = try await withTimeout(seconds: 30) { try await reader.value }
        #expect(seqs == Array(1...expected))
        // Cancelled while waiting for more: it ends, and its thread's descriptors are closed.
        try await Task.sleep(nanoseconds: 300_000_000)
        let descriptorsBefore = descriptors(concerning: folder)   // after one stream has come and gone
        let idle = Task { () throws -> Int in
            var count = 0
            for try await _ in store.events(after: expected) { count += 1 }
            return count
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(descriptors(concerning: folder).count > descriptorsBefore.count, "a waiting stream watches the journal")
        idle.cancel()
        #expect(try await withTimeout(seconds: 10) { try await idle.value } == 0)
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(descriptors(concerning: folder) == descriptorsBefore)
    }

    @Test @MainActor func theModelFollowsEveryWriteAndEqualsARebuild() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let store = try await household(path)
        let model = try await HouseholdModel(store: store)
        #expect(model.views.asOf == 1)
        var generator = RandomCommands(seed: 91)
        for round in 0..<6 {
            for _ in 0..<40 {
                let command = generator.next(for: await store.state)
                _ = try? await store.execute(command)
            }
            if round % 2 == 1 {   // another process writes too
                let other = try ChildProcess(storeWriter, [path, "other\(round)", "15", "5"])
                #expect(other.waitForExit() == 0)
                try await store.refresh()
            }
            let head = await store.head.seq
            try await withTimeout(seconds: 20) { @MainActor in
                while model.views.asOf < head { try await Task.sleep(nanoseconds: 10_000_000) }
            }
            let rebuilt = try ViewEngine.views(journal: path, useSnapshot: false).0   // every record, as the model keeps
            #expect(model.views == rebuilt, "round \(round)")
            #expect(model.stats == StatsView(rebuilt), "round \(round): the statistics kept row by row")
        }
        // Observation: a change to `views` is announced.
        let announced = Observed()
        withObservationTracking { _ = model.views } onChange: { announced.set() }
        try await store.execute(.createList(list: ListID(), name: "Observed", priority: nil))
        try await withTimeout(seconds: 10) { while !announced.value { try await Task.sleep(nanoseconds: 10_000_000) } }
        // And so is a change to the statistics (built on first use, then kept up to date).
        let statsAnnounced = Observed()
        withObservationTracking { _ = model.stats } onChange: { statsAnnounced.set() }
        try await store.execute(.createList(list: ListID(), name: "Observed too", priority: nil))
        try await withTimeout(seconds: 10) { while !statsAnnounced.value { try await Task.sleep(nanoseconds: 10_000_000) } }
        let end = await store.head.seq
        try await withTimeout(seconds: 10) { @MainActor in
            while model.views.asOf < end { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        #expect(model.stats == StatsView(try StatisticsViews.read(journal: path, useSnapshot: false).0))
        #expect(model.failure == nil)
    }
}

/// A flag set from an observation callback.
final class Observed: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}

struct TimedOut: Error {}

/// Runs `body`, failing with `TimedOut` after `seconds`.
func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            throw TimedOut()
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
}

/// The README's ShopStore example, as written there.
@Suite struct ReadmeStoreExampleTests {
    @Test @MainActor func theStoreExampleWorks() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path

        let store = try await ShopStore(path: path, options: .init(actor: "ana"))
        let home = HouseholdID(), milk = ItemID(), weekly = ListID()
        try await store.execute(.createHousehold(household: home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        try await store.execute(.createItem(item: milk, name: "Milk", location: nil, details: ItemDetails(unitPrice: 119)))
        try await store.execute(.createList(list: weekly, name: "Weekly", priority: .high))

        let model = try await HouseholdModel(store: store)
        try await store.execute(.addItemToList(list: weekly, item: milk, quantity: 2))

        var seen: [String] = []
        for try await recorded in store.events(after: 0) {
            seen.append("\(recorded.seq) \(recorded.actor) \(recorded.event.typeName)")
            if recorded.seq == 4 { break }
        }
        #expect(seen == ["1 ana HouseholdCreated", "2 ana ItemCreated", "3 ana ListCreated", "4 ana ItemAddedToList"])
        try await withTimeout(seconds: 10) { @MainActor in
            while model.views.asOf < 4 { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        #expect(model.views.asOf == 4)
        #expect(model.views.state.lists[weekly]?.entries.map(\.quantity) == [2])
    }
}

/// A path is resolved once, when a store or journal opens: an app that later
/// changes its working directory still writes its own household's journal,
/// never the file of the same name where it went (issue 34, item 1).
@Suite struct RelativePathTests {
    @Test(arguments: ["store", "journal", "shared"])
    func aChangeOfDirectoryAfterOpeningWritesTheJournalItOpened(kind: String) throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = folder.appendingPathComponent("home"), elsewhere = folder.appendingPathComponent("elsewhere")
        for directory in [home, elsewhere] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        let mine = home.appendingPathComponent("shop.ndjson").path, theirs = elsewhere.appendingPathComponent("shop.ndjson").path
        for (path, name) in [(mine, "Mine"), (theirs, "Theirs")] {
            let journal = try Journal.open(path: path, options: .init(actor: "setup"))
            try journal.execute(.createHousehold(household: HouseholdID(), name: name, currency: "EUR", timeZone: "UTC"))
            journal.close()
        }
        let theirBytes = Scratch.bytes(theirs)
        let theirFiles = try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted()

        let child = try ChildProcess(storeWriter, ["--chdir", kind, home.path, elsewhere.path], stdout: .pipe)
        let answer = child.readLine(timeout: 30)
        #expect(child.waitForExit() == 0)
        #expect(answer == "seqs [2] \(mine)")

        // Their journal is byte for byte as it was; ours has the item, and every sibling file is ours.
        #expect(Scratch.bytes(theirs) == theirBytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted() == theirFiles)
        let events = try JournalReader.readAll(path: mine)
        #expect(events.map(\.event.typeName) == ["HouseholdCreated", "ItemCreated"])
        #expect(FileManager.default.fileExists(atPath: mine + ".chain"))
    }

    @Test func aReplicaOpenedBeforeAChangeOfDirectoryPutsCommandsInItsOwnOutbox() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = folder.appendingPathComponent("home"), elsewhere = folder.appendingPathComponent("elsewhere")
        for directory in [home, elsewhere] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        let hub = home.appendingPathComponent("hub.ndjson").path
        let setup = try Journal.open(path: hub, options: .init(actor: "setup"))
        try setup.execute(.createHousehold(household: HouseholdID(), name: "Mine", currency: "EUR", timeZone: "UTC"))
        setup.close()
        let clone = try ChildProcess(ToolRunner.binary, ["clone", "--hub", hub, "--journal", "shop.ndjson", "--actor", "ana"], directory: home.path)
        #expect(clone.waitForExit() == 0)
        let theirs = elsewhere.appendingPathComponent("shop.ndjson").path
        let other = try Journal.open(path: theirs, options: .init(actor: "setup"))
        try other.execute(.createHousehold(household: HouseholdID(), name: "Theirs", currency: "EUR", timeZone: "UTC"))
        other.close()
        let theirFiles = try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted()
        let theirBytes = Scratch.bytes(theirs)

        let child = try ChildProcess(storeWriter, ["--chdir", "replica", home.path, elsewhere.path], stdout: .pipe)
        let answer = child.readLine(timeout: 30)
        #expect(child.waitForExit() == 0)
        let mine = home.appendingPathComponent("shop.ndjson").path
        #expect(answer == "pending true \(mine)")
        #expect(try Replica(path: mine).pending.map(\.command.typeName) == ["CreateItem"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted() == theirFiles)
        #expect(Scratch.bytes(theirs) == theirBytes)
    }
}

/// A program's commands into a journal, made only when a command is accepted, or a replica's outbox.
@Suite struct CommandWriterTests {
    @Test func aMissingJournalIsMadeOnlyForACommandItAccepts() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("new.ndjson").path
        let writer = try CommandWriter(path: path, options: .init(actor: "ana"))
        let refused = try writer.execute([CommandEnvelope(.createList(name: "Weekend"))])
        #expect(refused.map { (try? $0.get()) == nil } == [true])
        if case let .failure(violation)? = refused.first { #expect(violation.code == "no_household") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [], "no journal, no lock")
        #expect(try writer.refreshedState() == .initial)
        let accepted = try writer.execute([CommandEnvelope(.createHousehold(name: "Home", currency: "EUR", timeZone: "UTC")),
                                           CommandEnvelope(.createList(name: "Weekend"))])
        #expect(try accepted.map { try $0.get().seqs } == [[1], [2]])
        #expect(writer.state.lists.values.map(\.name) == ["Weekend"])
        writer.close()
        #expect(try JournalReader.readAll(path: path).map(\.event.typeName) == ["HouseholdCreated", "ListCreated"])
    }

    @Test func onAReplicaCommandsGoToTheOutboxUnderTheReplicasDevice() throws {
        let world = SyncWorld()
        _ = try world.makeHub(items: ["Milk"], onList: [], members: [])
        #expect(try world.clone("phone", actor: "ana").status == 0)
        let writer = try CommandWriter(path: world.path("phone"), options: .init(actor: "ana", device: "a-tool"))
        defer { writer.close() }
        #expect(writer.isReplica)
        let outcome = try #require(try writer.execute([CommandEnvelope(.createList(name: "Party"))]).first?.get())
        #expect(outcome.isPending)
        let pending = try Replica(path: world.path("phone")).pending
        #expect(pending.map(\.command.typeName) == ["CreateList"])
        #expect(pending.first?.device == "phone", "the replica's own device, as J.sync names it")
    }
}
