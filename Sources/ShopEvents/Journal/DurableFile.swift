import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file primitives of the durable path, in one place: a write made
/// whole, the one `fsync`, a file replaced atomically, a folder synced.
/// Everything that must survive a crash — journal lines, backups of torn
/// tails, the outbox, snapshots, exports, and the hosted hub's files beside its
/// journals — is written through these.
///
/// ```swift
/// try DurableFile.writeAtomically(Array("kept\n".utf8), to: "/srv/hub/hub.key", mode: 0o600)
/// ```
public enum DurableFile {
    /// Writes `raw` to `fd` at `offset`, whole (short writes continued, `EINTR` retried); false if a write fails.
    static func writeWhole(_ fd: Int32, _ raw: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard let base = raw.baseAddress else { return true }   // nothing to write
        var done = 0
        while done < raw.count {
            let n = pwrite(fd, base + done, raw.count - done, off_t(offset + done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// The one `fsync` of the package (`F_FULLFSYNC` on Apple platforms, whose `fsync` leaves the data in the disk's cache).
    static func sync(_ fd: Int32) -> Bool {
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
    /// `mode` is the new file's (0600 for a secret: it is never readable by others, not even for a moment).
    public static func writeAtomically(_ bytes: [UInt8], to file: String, mode: mode_t = 0o644) throws(JournalError) {
        let temporary = "\(file).tmp-\(getpid())"
        unlink(temporary)   // a crashed run's, which may have another mode
        let fd = Posix.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw JournalError.io("create", temporary) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.nonEmptyBase + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = JournalError.io("write", temporary)
                _ = Posix.close(fd); unlink(temporary)
                throw error
            }
            done += n
        }
        let synced = sync(fd)
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
        guard sync(dirFD) else { throw JournalError.io("fsync directory of", path) }
    }
}
