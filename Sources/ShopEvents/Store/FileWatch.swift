import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes a watching thread when a journal file changes, or when told to stop.
///
/// The thread waits in `poll(2)` on two descriptors: a pipe that ``stop()``
/// writes to, and a descriptor that becomes readable when the journal
/// changes — an inotify instance on Linux; on Apple platforms the read end of
/// a pipe that dispatch sources on the folder and on the file write to. Where
/// neither can be set up it wakes every 250 ms and looks. Its descriptors are
/// closed once, by the watching thread, after it has stopped.
final class FileWatch: Sendable {
    /// Whether it was asked to stop, and whether its descriptors are closed: the watching
    /// thread and the stream's termination handler share this object.
    private let flags = Locked((stopped: false, closed: false))
    /// A pipe: writing to it wakes the watcher to stop.
    private let wakeRead: Int32, wakeWrite: Int32
    /// Readable when the journal (or its folder) changed; -1 when nothing watches.
    private let changeFD: Int32
    #if canImport(Darwin)
    private let sources: DarwinSources?
    #endif

    init(path: String) throws(JournalError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw JournalError.io("pipe for watching", path) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // The folder too, not just the file: the file may not exist yet, or be created anew.
        let folder = (path as NSString).deletingLastPathComponent
        #if canImport(Glibc)
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if fd >= 0 {
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)
            if inotify_add_watch(fd, folder.isEmpty ? "." : folder, mask) < 0 {
                _ = Posix.close(fd)
                changeFD = -1
            } else {
                changeFD = fd
            }
        } else {
            changeFD = -1
        }
        #elseif canImport(Darwin)
        sources = DarwinSources(path: path, folder: folder.isEmpty ? "." : folder)
        changeFD = sources?.changedRead ?? -1
        #else
        changeFD = -1
        #endif
    }

    var isStopped: Bool { flags.withLock { $0.stopped } }

    /// Asks the watcher to stop; it wakes at once.
    func stop() {
        flags.withLock { flags in
            guard !flags.stopped else { return }
            flags.stopped = true
            if !flags.closed {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
        }
    }

    /// Returns when the journal changed, when asked to stop, or after a while.
    func waitForChange() {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if changeFD >= 0 { fds.append(pollfd(fd: changeFD, events: Int16(POLLIN), revents: 0)) }
        let timeout: Int32 = changeFD >= 0 ? 1000 : 250
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready > 0, changeFD >= 0, fds[1].revents != 0 {
            // Drain the notifications: one read of the journal covers them all.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(changeFD, &buffer, buffer.count) > 0 {}
        }
    }

    /// Closes the descriptors, once.
    func close() {
        flags.withLock { flags in
            guard !flags.closed else { return }
            flags.closed = true
            _ = Posix.close(wakeRead)
            _ = Posix.close(wakeWrite)
            #if canImport(Darwin)
            sources?.cancel()
            #else
            if changeFD >= 0 { _ = Posix.close(changeFD) }
            #endif
        }
    }

    deinit { close() }
}

#if canImport(Darwin)
/// Dispatch sources on the journal's folder (a file created or renamed into
/// it) and on the journal itself (written, extended), each of which writes a
/// byte to a non-blocking pipe that the watching thread polls. The file's
/// source is attached when the file appears and again when it is replaced.
private final class DarwinSources: @unchecked Sendable {
    // @unchecked: every mutable field is touched only on `queue`, or in
    // `cancel()` through `queue.sync` after the watcher has stopped.
    let changedRead: Int32
    private let changedWrite: Int32
    private let path: String
    private let queue: DispatchQueue
    private var folderSource: (any DispatchSourceFileSystemObject)?
    private var fileSource: (any DispatchSourceFileSystemObject)?

    init?(path: String, folder: String) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        changedRead = fds[0]
        changedWrite = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        self.path = path
        queue = DispatchQueue(label: "ShopStore.events.watch")
        let folderFD = Darwin.open(folder, O_EVTONLY | O_CLOEXEC)
        guard folderFD >= 0 else {
            _ = Darwin.close(changedRead)
            _ = Darwin.close(changedWrite)
            return nil
        }
        queue.sync {
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: folderFD, eventMask: [.write, .rename, .link], queue: queue)
            source.setEventHandler { [weak self] in
                self?.attachFile()
                self?.signal()
            }
            source.setCancelHandler { _ = Darwin.close(folderFD) }
            source.resume()
            folderSource = source
            attachFile()
        }
    }

    /// On `queue`: watches the file now at `path` (again, if it was replaced).
    private func attachFile() {
        fileSource?.cancel()
        fileSource = nil
        let fileFD = Darwin.open(path, O_EVTONLY | O_CLOEXEC)
        guard fileFD >= 0 else { return }
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: fileFD, eventMask: [.write, .extend, .delete, .rename], queue: queue)
        source.setEventHandler { [weak self] in self?.signal() }
        source.setCancelHandler { _ = Darwin.close(fileFD) }
        source.resume()
        fileSource = source
    }

    /// Wakes the watching thread; a full pipe already will.
    private func signal() {
        var byte: UInt8 = 1
        _ = Darwin.write(changedWrite, &byte, 1)
    }

    /// Cancels both sources (their handlers close the watched descriptors) and
    /// closes the pipe once no handler can run any more.
    func cancel() {
        queue.sync {
            fileSource?.cancel()
            folderSource?.cancel()
            fileSource = nil
            folderSource = nil
        }
        // Cancellation handlers run on `queue`; once this block runs, none is pending.
        queue.sync {
            _ = Darwin.close(changedRead)
            _ = Darwin.close(changedWrite)
        }
    }
}
#endif
