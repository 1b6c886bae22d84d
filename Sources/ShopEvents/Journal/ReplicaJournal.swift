import Foundation

/// A replica of a sync hub, opened by sync, its one writer: lines are
/// appended as the hub has them, byte for byte, after their chain is checked.
/// Lines a newer version wrote are kept (their chain checked, nothing of them
/// folded). A torn tail a killed pull left is backed up and cut, as a
/// ``Journal`` does on opening.
final class ReplicaJournal {
    let file: AppendFile
    private(set) var chain: JournalChain
    /// Set when opening cut a torn tail or an incomplete command.
    let recoveredTornTail: Journal.TornTailRecovery?

    /// Opens the replica at `path`; sync holds the writer's lock (`lockFD`), which
    /// ``close()`` releases (on failure too).
    init(path: String, lockFD: Int32) throws(JournalError) {
        file = try AppendFile.open(path: JournalPath.absolute(path), lockTimeout: 0, existing: nil, lockFD: lockFD)
        do throws(JournalError) {
            let read = try ReadBack.load(file, replica: true, recoverTail: true)
            (chain, recoveredTornTail) = (read.chain, read.recovered)
        } catch {
            file.close(discardingIfEmpty: true)
            throw error
        }
    }

    deinit { close() }

    var state: ShopState { chain.state }
    var head: JournalHead { chain.head }

    /// Whether the replica holds the command.
    func holds(_ command: CommandID) -> Bool { chain.commands[command] != nil }

    func close() { file.close(discardingIfEmpty: false) }

    /// Appends lines pulled from the hub, byte for byte, after checking each
    /// one's chain (`seq`, `prev`, `at`, command grouping); with one `write`
    /// and one `fsync`. A command whose lines are not all there is left out
    /// (the next pull brings it whole). The first bad line throws and nothing
    /// is written. Returns how many lines were appended.
    func append(replicated lines: [[UInt8]]) throws(JournalError) -> Int {
        guard file.isOpen else { throw JournalError(.closed, "the replica \(file.path) is closed; open it again") }
        let saved = chain
        let size = file.end
        // Accepts the first `count` lines; returns how many end a whole command, and their bytes.
        func accept(_ count: Int) throws(JournalError) -> (lines: Int, bytes: Int) {
            var offset = size
            var whole = (lines: 0, bytes: 0)
            for (index, line) in lines[..<count].enumerated() {
                let number = chain.head.seq + 1, at = offset
                try line.withUnsafeBytes { raw in
                    Result { () throws(JournalError) in try chain.accept(raw, number: number, offset: at) }
                }.get()
                offset += line.count + 1
                if chain.openCommand == nil { whole = (index + 1, offset - size) }
            }
            return whole
        }
        var whole: (lines: Int, bytes: Int)
        do throws(JournalError) {
            whole = try accept(lines.count)
            if whole.lines < lines.count {
                // The last command is not all here: fold again without it (rare: a hub never splits one).
                chain = saved
                whole = try accept(whole.lines)
            }
        } catch {
            chain = saved
            throw error
        }
        guard whole.lines > 0 else { return 0 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(whole.bytes)
        for line in lines[..<whole.lines] {
            bytes.append(contentsOf: line)
            bytes.append(0x0A)
        }
        do throws(JournalError) {
            try file.append(bytes)
        } catch {
            // Cut back (or closed): the chain is what the file holds.
            chain = saved
            throw error
        }
        return whole.lines
    }
}
