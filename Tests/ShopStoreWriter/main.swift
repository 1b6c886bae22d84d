// A second process for the ShopStore tests: writes COUNT commands through a
// ShopStore, in bursts, printing each command's seqs as it is acknowledged.
//
//   ShopStoreWriter JOURNAL WRITER COUNT [BURST] [PAUSE-MS]
//
// With --pipelined, writes COUNT commands through Journal.execute(batches:acknowledge:),
// BATCH a batch, printing each acknowledged command's seqs; SIGXFSZ is ignored, so
// that a file size limit fails a write (the full-disk test of the pipelined commit).
//
//   ShopStoreWriter --pipelined JOURNAL COUNT BATCH
import Foundation
import ShopEvents

let arguments = CommandLine.arguments
// --chdir: opens `shop.ndjson` (a relative path) through KIND (store, journal,
// shared, replica) in HOME, changes the working directory to ELSEWHERE, then
// writes through what it opened, printing what it got.
//
//   ShopStoreWriter --chdir KIND HOME ELSEWHERE
if arguments.count == 5, arguments[1] == "--chdir" {
    let kind = arguments[2], home = arguments[3], elsewhere = arguments[4]
    func move(to folder: String) {
        guard FileManager.default.changeCurrentDirectoryPath(folder) else { print("cannot chdir to \(folder)"); exit(3) }
    }
    do {
        move(to: home)
        let item = CommandEnvelope(.createItem(item: ItemID(), name: "Butter", location: nil, details: .none))
        switch kind {
        case "store":
            let store = try await ShopStore(path: "shop.ndjson", options: .init(actor: "ana"))
            move(to: elsewhere)
            print("seqs", try await store.execute(item).seqs, store.path)
            try await store.saveSnapshot()
        case "journal", "shared":
            let journal: any JournalWriting = kind == "journal" ? try Journal.open(path: "shop.ndjson", options: .init(actor: "ana"))
                                                                : try SharedJournal.open(path: "shop.ndjson", options: .init(actor: "ana"))
            move(to: elsewhere)
            print("seqs", try journal.execute(item).seqs, journal.path)
            try journal.saveSnapshot()
            journal.close()
        case "replica":
            let replica = try await ReplicaStore(path: "shop.ndjson", options: .init(actor: "ana"))
            move(to: elsewhere)
            let outcome = try await replica.execute(item)
            print("pending", outcome.isPending, replica.path)
        default:
            print("unknown kind \(kind)"); exit(2)
        }
        exit(0)
    } catch {
        print("error \(error)")
        exit(1)
    }
}
if arguments.count == 5, arguments[1] == "--pipelined", let count = Int(arguments[3]), let size = Int(arguments[4]) {
    signal(SIGXFSZ, SIG_IGN)
    do {
        let journal = try Journal.open(path: arguments[2], options: .init(actor: "pipelined"))
        let commands = (0..<count).map { n in
            CommandEnvelope(.createItem(item: ItemID(), name: "Item \(n)", location: nil, details: .none))
        }
        let batches = stride(from: 0, to: count, by: size).lazy.map { Array(commands[$0..<min($0 + size, count)]) }
        try journal.execute(batches: batches) { results in
            for result in results {
                let outcome = try result.get()
                print("ok \(outcome.command) \(outcome.seqs.map(String.init).joined(separator: ","))")
            }
            fflush(nil)
        }
        journal.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("ShopStoreWriter: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count >= 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: ShopStoreWriter JOURNAL WRITER COUNT [BURST] [PAUSE-MS]\n".utf8))
    exit(2)
}
let path = arguments[1], writer = arguments[2]
let burst = arguments.count > 4 ? Int(arguments[4]) ?? 1 : 1
let pause = arguments.count > 5 ? UInt64(arguments[5]) ?? 0 : 0
do {
    let store = try await ShopStore(path: path, options: .init(actor: writer, device: "writer-\(writer)", lockTimeout: 60))
    var written = 0
    while written < count {
        let size = min(burst, count - written)
        let batch = (written..<(written + size)).map { n in
            CommandEnvelope(.createItem(item: ItemID(), name: "\(writer) item \(n)", location: nil, details: .none))
        }
        for result in try await store.execute(batch: batch) {
            let outcome = try result.get()
            print("ok \(outcome.command) \(outcome.seqs.map(String.init).joined(separator: ","))")
        }
        fflush(nil)
        written += size
        if pause > 0 { try await Task.sleep(nanoseconds: pause * 1_000_000) }
    }
} catch {
    FileHandle.standardError.write(Data("ShopStoreWriter: \(error)\n".utf8))
    exit(1)
}
