import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// The durable append alone (``AppendFile``): the lock before the file, bytes
/// appended whole at the end, a torn tail kept aside before it is cut, and a
/// close that lets go of both. (A failing write's cut-back is held to its
/// claim across processes, under a file size limit: `PipelinedFullDiskTests`,
/// `ToolMistakesAndDamageTests`.)
@Suite struct AppendFileTests {
    @Test func theLockComesFirstAndASecondOpenWaitsThenIsRefused() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let file = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        #expect(file.created && file.isOpen && file.end == 0)
        #expect(FileManager.default.fileExists(atPath: path + ".lock"))
        do {
            _ = try AppendFile.open(path: path, lockTimeout: 0.2, existing: nil, lockFD: nil)
            Issue.record("a second open took the lock")
        } catch {
            #expect(error.reason == .locked)
        }
        file.close(discardingIfEmpty: false)
        let again = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        #expect(!again.created)
        again.close(discardingIfEmpty: false)
    }

    @Test func appendsGoToTheEndWholeAndAClosedFileRefusesAndWritesNothing() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let file = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        try file.append(Array("one\n".utf8))
        try file.append(Array("two\n".utf8))
        #expect(file.end == 8)
        #expect(Scratch.bytes(path) == Array("one\ntwo\n".utf8))
        file.close(discardingIfEmpty: true)   // not empty: kept
        #expect(Scratch.bytes(path) == Array("one\ntwo\n".utf8))
        do {
            try file.append(Array("three\n".utf8))
            Issue.record("a closed file took an append")
        } catch {
            #expect(error.reason == .closed)
        }
        #expect(Scratch.bytes(path) == Array("one\ntwo\n".utf8))
    }

    @Test func aTornTailIsKeptAsideDurablyBeforeItIsCut() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        Scratch.write(Array("whole\ntor".utf8), to: path)
        let file = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        defer { file.close(discardingIfEmpty: false) }
        let (length, backup) = try file.cutTail(from: 6, through: 9)
        #expect(length == 3)
        #expect(backup.hasPrefix(path + ".torn-"))
        #expect(Scratch.bytes(backup) == Array("tor".utf8))
        #expect(Scratch.bytes(path) == Array("whole\n".utf8))
        // A second cut the same second gets a name of its own: no backup is ever overwritten.
        Scratch.write(Array("whole\nto".utf8), to: path)
        let second = try file.cutTail(from: 6, through: 8).backup
        #expect(second != backup && Scratch.bytes(second) == Array("to".utf8) && Scratch.bytes(backup) == Array("tor".utf8))
    }

    @Test func anEmptyFileThisOpenCreatedIsDiscardedOnRequestAndOneItFoundIsNot() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let created = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        created.close(discardingIfEmpty: true)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + ".lock"), "the lock file stays: another process may wait on it")
        Scratch.write([], to: path)
        let found = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        found.close(discardingIfEmpty: true)
        #expect(FileManager.default.fileExists(atPath: path), "not created by this open: kept")
    }

    @Test func anExistingFileIsRefusedOrMovedAsideWithItsSnapshotsNeverLost() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        Scratch.write(Array("old\n".utf8), to: path)
        Scratch.write(Array("chain".utf8), to: path + ".chain")
        do {
            _ = try AppendFile.open(path: path, lockTimeout: 1, existing: .refuse, lockFD: nil)
            Issue.record("an existing journal was not refused")
        } catch {
            #expect(error.reason == .exists)
        }
        #expect(Scratch.bytes(path) == Array("old\n".utf8))
        let file = try AppendFile.open(path: path, lockTimeout: 1, existing: .keepAsBackup, lockFD: nil)
        defer { file.close(discardingIfEmpty: false) }
        let backup = try #require(file.previousBackup)
        #expect(Scratch.bytes(backup) == Array("old\n".utf8))
        #expect(Scratch.bytes(backup + ".chain") == Array("chain".utf8))
        #expect(file.created && Scratch.bytes(path).isEmpty && !FileManager.default.fileExists(atPath: path + ".chain"))
    }

    @Test func sharedTheLockIsHeldOnlyWhileWritingAndAnotherWriterCanTakeIt() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let first = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        defer { first.close(discardingIfEmpty: false) }
        first.shareLock()
        let second = try AppendFile.open(path: path, lockTimeout: 1, existing: nil, lockFD: nil)
        #expect(try !first.lockForWriting(), "held by the second")
        second.close(discardingIfEmpty: false)
        try first.lockBlocking(timeout: 1)
        #expect(first.holdsLock)
        first.unlock()
        #expect(!first.holdsLock)
    }
}
