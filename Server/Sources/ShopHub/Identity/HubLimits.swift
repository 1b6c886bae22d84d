import ShopEvents

/// What a hub may take, and from whom (docs/HUB.md gives the defaults).
///
/// ```swift
/// var limits = HubLimits()
/// limits.requestsPerTokenPerSecond = 50
/// limits.maxWaitSeconds = 25          // a proxy in front times out at 30 s
/// ```
public struct HubLimits: Sendable, Hashable {
    /// The largest body taken, in bytes.
    public var maxBodyBytes = SyncWire.maxRequestBytes
    /// Requests a second a token may make.
    public var requestsPerTokenPerSecond = 20.0
    /// Requests a token may make at once: a second's worth, and never fewer than ten, so that a
    /// device's sync (a hello, a pull, a push and a pull: about four requests) fits at any rate.
    public var requestsPerTokenBurst: Double { max(10, requestsPerTokenPerSecond) }
    /// Households one client address may create in an hour.
    public var householdsPerAddressPerHour = 60
    /// Join attempts one client address may make a minute (a code has 50 random bits; guessing is slow).
    public var joinsPerAddressPerMinute = 20
    /// The longest a pull waits for a line, whatever its `wait` (which may ask for up to 60 s).
    public var maxWaitSeconds = 60
    /// An invite's life when the owner names none, and the longest one may have.
    public var defaultInviteSeconds = 7 * 24 * 3600
    public var maxInviteSeconds = 30 * 24 * 3600

    public init() {}
}
