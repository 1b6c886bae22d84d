import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The writer's exclusive advisory lock: `flock` on `<journal>.lock`, which
/// holds the pid of the process that has it.
enum WriterLock {
    static func acquire(journalPath: String, timeout: Double) throws(JournalError) -> Int32 {
        let fd = try openFile(journalPath: journalPath)
        let lockPath = journalPath + ".lock"
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = JournalError.io("lock", lockPath)
                _ = Posix.close(fd)
                throw error
            }
            if Date() >= deadline {
                let pid = holder(fd)
                _ = Posix.close(fd)
                throw JournalError(.locked, "\(journalPath) is being written by process \(pid) (lock \(lockPath)); waited \(timeout) s — try again when it is done")
            }
            usleep(10_000)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    static func release(_ fd: Int32) {
        _ = ftruncate(fd, 0)
        _ = flock(fd, LOCK_UN)
        _ = Posix.close(fd)
    }

    /// The lock file opened, not locked: for a writer that locks only while it writes.
    static func openFile(journalPath: String) throws(JournalError) -> Int32 {
        let lockPath = journalPath + ".lock"
        let fd = Posix.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            // Said of the journal, which is what the caller named; the lock file is how it is guarded.
            let code = errno
            let folder = (journalPath as NSString).deletingLastPathComponent
            let why = code == ENOENT ? "the folder \(folder.isEmpty ? "." : folder) does not exist"
                : "\(String(cString: strerror(code))) (errno \(code)) making its lock file \(lockPath)"
            throw JournalError(.io, "cannot open the journal \(journalPath): \(why)")
        }
        return fd
    }

    /// One attempt at the lock; records this process's pid when it is taken.
    static func tryLock(_ fd: Int32, journalPath: String) throws(JournalError) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw JournalError.io("lock", journalPath + ".lock")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return true
    }

    /// The pid the lock file names, or "unknown".
    static func holder(_ fd: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &bytes, 31, 0)
        return n > 0 ? String(decoding: bytes[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"
    }

    /// Lets the lock go and keeps the file open.
    static func unlock(_ fd: Int32) {
        _ = ftruncate(fd, 0)
        _ = flock(fd, LOCK_UN)
    }
}

/// The few system calls whose Swift names differ between Linux and Apple platforms.
enum Posix {
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        #if canImport(Glibc)
        return Glibc.open(path, flags, mode)
        #else
        return Darwin.open(path, flags, mode)
        #endif
    }

    @discardableResult
    static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.close(fd)
        #else
        return Darwin.close(fd)
        #endif
    }
}
