import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A replica of a sync hub: written by sync only, line for line as the hub has them.
extension Journal {
    // MARK: A replica, written by sync only

    /// Opens a sync replica for the one writer it has, sync, which holds the
    /// writer's lock (`lockFD`, released by ``close()``, on failure too); a torn tail a killed pull left is backed up
    /// and cut as usual; lines a newer version wrote are kept (chain checked).
    static func openReplicaForSync(path: String, options: Options, lockFD: Int32) throws(JournalError) -> Journal {
        try open(path: path, options: options, existing: nil, lockFD: lockFD, forSync: true)
    }

    /// Appends lines pulled from the hub, byte for byte, after checking each
    /// one's chain (`seq`, `prev`, `at`, command grouping); with one `write`
    /// and one `fsync`. A command whose lines are not all there is left out
    /// (the next pull brings it whole). The first bad line throws and nothing
    /// is written. Returns how many lines were appended.
    func appendReplicated(_ lines: [[UInt8]]) throws(JournalError) -> Int {
        guard fd >= 0, holdsLock else { throw JournalError(.closed, "the replica \(path) is closed; open it again") }
        let saved = chain
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
        try writeDurably(bytes, at: size)
        return whole.lines
    }

    /// The command ids this journal holds.
    func holds(_ command: CommandID) -> Bool { chain.commands[command] != nil }
}
