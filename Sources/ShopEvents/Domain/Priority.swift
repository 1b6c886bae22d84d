import Foundation

/// A list's priority; views sort high before normal before low.
public enum Priority: String, Hashable, Sendable, CaseIterable {
    case low, normal, high

    /// 2 for high, 1 for normal, 0 for low.
    public var rank: Int {
        switch self {
        case .low: return 0
        case .normal: return 1
        case .high: return 2
        }
    }
}
