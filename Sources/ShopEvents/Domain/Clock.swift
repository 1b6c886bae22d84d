import Foundation

/// Where the current time comes from. Inject a fixed or stepping clock in tests.
///
/// ```swift
/// let clock = Clock.stepping(from: Timestamp("2026-01-01T08:00:00.000Z")!, by: 1000)
/// ```
public struct Clock: Sendable {
    private let read: @Sendable () -> Timestamp
    public init(_ read: @escaping @Sendable () -> Timestamp) { self.read = read }
    public func now() -> Timestamp { read() }

    /// The system clock.
    public static let system = Clock { Timestamp(Date()) }
}
