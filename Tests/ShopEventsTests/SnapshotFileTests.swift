import Foundation
import Testing
import ShopTestSupport
@testable import ShopEvents

/// A snapshot file: its checksum finds any damage, resident or not.
@Suite struct SnapshotFileTests {
    @Test("a snapshot file with any one byte changed, or cut short, is recognised as damaged")
    func snapshotChecksum() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("file.snapshot").path, magic = Array("SHOPTEST".utf8)
        var random = SeededRandom(seed: 7)
        let body = magic + (0..<301).map { _ in UInt8.random(in: 0...255, using: &random) }
        try SnapshotFile.write(body, to: path)
        let good = Scratch.bytes(path)
        #expect(good.count == body.count + 8)
        guard case var .success(r) = SnapshotFile.read(path, magic: magic) else { Issue.record("the file does not read back"); return }
        var read: [UInt8] = []
        try r.block(301) { read = Array($0) }
        #expect(r.isAtEnd && magic + read == body)
        for at in 0..<good.count {
            for bit in [0x01, 0x80] as [UInt8] {
                var bytes = good
                bytes[at] ^= bit
                Scratch.write(bytes, to: path)
                let expected: SnapshotFile.Problem = at < magic.count ? .notASnapshot : .damaged
                #expect(SnapshotFile.read(path, magic: magic).failure == expected, "byte \(at) bit \(bit)")
            }
        }
        for length in [0, 7, magic.count + 11, good.count - 1] {
            Scratch.write(Array(good.prefix(length)), to: path)
            #expect(SnapshotFile.read(path, magic: magic).failure != nil, "cut to \(length) bytes")
        }
    }

    @Test("a snapshot read without keeping it resident (its pages let go once checksummed) reads the same bytes, and damage anywhere is found")
    func snapshotNotResident() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("file.snapshot").path, magic = Array("SHOPTEST".utf8)
        var random = SeededRandom(seed: 8)
        let size = 9 << 20 + 77   // past two 4 MiB marks, and not a whole number of stripes
        var body = magic
        body.reserveCapacity(magic.count + size)
        while body.count < magic.count + size {
            withUnsafeBytes(of: random.next()) { body.append(contentsOf: $0.prefix(magic.count + size - body.count)) }
        }
        var marks: [Int] = []
        let (whole, streamed) = body.withUnsafeBytes { raw in (SnapshotFile.checksum(raw), SnapshotFile.checksum(raw) { marks.append($0) }) }
        #expect(whole == streamed && marks == [4 << 20, 8 << 20])
        try SnapshotFile.write(body, to: path)
        guard case var .success(r) = SnapshotFile.read(path, magic: magic, resident: false) else { Issue.record("the file does not read back"); return }
        var read: [UInt8] = []
        try r.block(size) { read = Array($0) }
        #expect(r.isAtEnd && magic + read == body)
        let good = Scratch.bytes(path)
        for at in [magic.count, 4 << 20 - 1, 4 << 20, 5 << 20 + 3, good.count - 9, good.count - 1] {
            var bytes = good
            bytes[at] ^= 0x10
            Scratch.write(bytes, to: path)
            #expect(SnapshotFile.read(path, magic: magic, resident: false).failure == .damaged, "byte \(at)")
        }
    }
}

private extension Result {
    var failure: Failure? { if case let .failure(problem) = self { problem } else { nil } }
}
