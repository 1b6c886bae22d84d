import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The durable path: every write of the journal goes through here — written
// whole, `fsync`ed, or cut back to where it was.
extension Journal {
    // MARK: Durable writing

    func writeDurably(_ bytes: [UInt8], at offset: Int) throws(JournalError) {
        notPipelining("a write")
        let failure: JournalError? = !writeWhole(bytes, at: offset) ? .io("write", path) : !DurableFile.sync(fd) ? .io("fsync", path) : nil
        if let failure {
            rollBack(to: offset)
            throw failure
        }
        size = offset + bytes.count
    }

    /// After a failed write: cut the file back to the last acknowledged byte
    /// and rebuild the state from disk. If even that fails, the journal closes.
    func rollBack(to offset: Int) {
        if ftruncate(fd, off_t(offset)) == 0, DurableFile.sync(fd) {
            chain = JournalChain()
            do {
                try load(recoverTail: false)
                return
            } catch {}
        }
        close()
    }
}
