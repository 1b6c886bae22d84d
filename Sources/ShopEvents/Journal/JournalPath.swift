import Foundation

/// A journal's path, made absolute once, when a journal, store, replica,
/// reader or follower opens it.
///
/// A relative path names a file of the working directory as it is *now*; an
/// app or a server that later changes directory would otherwise write the
/// next command into another household's journal of the same name. Every
/// file a journal later touches (its lock, snapshots, outbox, `.rejected`,
/// backups) is a sibling of the absolute path, so it follows too. Links are
/// not resolved: the path stays the one the caller named.
package enum JournalPath {
    /// Whether the journal at `path` is a replica of a sync hub, which only sync
    /// writes: `<path>.sync` is there (sync's own file; the journal only keeps
    /// other writers off it).
    package static func isReplica(_ path: String) -> Bool { access(path + ".sync", F_OK) == 0 }

    /// `path` if it is absolute, else the working directory's path joined to it.
    package static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), !path.isEmpty else { return path }
        let directory = FileManager.default.currentDirectoryPath
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }
}
