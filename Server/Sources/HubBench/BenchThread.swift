import Foundation

/// Runs `body` on a thread of its own and waits for what it gives: the benches drive blocking
/// sockets with `poll`, which must not hold one of the tasks' pool's threads.
func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }.start()
    }
}

/// A new folder for one bench run's hub (`hub-bench-NAME-XXXXXXXX` in the temporary folder); the caller removes it.
func benchFolder(_ name: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hub-bench-\(name)-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}
