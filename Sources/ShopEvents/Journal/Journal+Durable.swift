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
        let failure: JournalError? = !writeWhole(bytes, at: offset) ? .io("write", path) : !Journal.fullSync(fd) ? .io("fsync", path) : nil
        if let failure {
            rollBack(to: offset)
            throw failure
        }
        size = offset + bytes.count
    }

    /// After a failed write: cut the file back to the last acknowledged byte
    /// and rebuild the state from disk. If even that fails, the journal closes.
    func rollBack(to offset: Int) {
        if ftruncate(fd, off_t(offset)) == 0, Journal.fullSync(fd) {
            chain = JournalChain()
            do {
                try load(recoverTail: false)
                return
            } catch {}
        }
        close()
    }

    static func fullSync(_ fd: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return true }
        #endif
        while fsync(fd) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Replaces `file` with `bytes` or leaves it as it was: a temporary file
    /// beside it, written whole, `fsync`, rename, and the folder synced.
    package static func writeAtomically(_ bytes: [UInt8], to file: String) throws(JournalError) {
        let temporary = "\(file).tmp-\(getpid())"
        let fd = Posix.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.io("create", temporary) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = JournalError.io("write", temporary)
                _ = Posix.close(fd); unlink(temporary)
                throw error
            }
            done += n
        }
        let synced = fullSync(fd)
        _ = Posix.close(fd)
        guard synced else {
            unlink(temporary)
            throw JournalError.io("fsync", temporary)
        }
        guard rename(temporary, file) == 0 else {
            let error = JournalError.io("rename \(temporary) to", file)
            unlink(temporary)
            throw error
        }
        try syncDirectory(of: file)
    }

    static func syncDirectory(of path: String) throws(JournalError) {
        let directory = (path as NSString).deletingLastPathComponent
        let dirFD = Posix.open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard dirFD >= 0 else { throw JournalError.io("open directory of", path) }
        defer { _ = Posix.close(dirFD) }
        guard fullSync(dirFD) else { throw JournalError.io("fsync directory of", path) }
    }
}
