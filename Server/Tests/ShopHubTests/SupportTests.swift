import Testing
@testable import ShopHub

/// The small helpers of a request's log line and its token.
@Suite struct SupportTests {
    @Test func millisecondsHaveOneDecimalRoundedHalfUp() {
        #expect(HubMetrics.milliseconds(.zero) == "0.0")
        #expect(HubMetrics.milliseconds(.microseconds(49)) == "0.0")
        #expect(HubMetrics.milliseconds(.microseconds(50)) == "0.1")
        #expect(HubMetrics.milliseconds(.microseconds(12_345)) == "12.3")
        #expect(HubMetrics.milliseconds(.microseconds(1_960)) == "2.0")
        #expect(HubMetrics.milliseconds(.seconds(61) + .microseconds(7_000)) == "61007.0")
    }

    @Test func blanksAreTrimmedAtBothEndsOnly() {
        #expect("abc".dropFirst(0).trimmingBlanks == "abc")
        #expect(" \tab c \t".dropFirst(0).trimmingBlanks == "ab c")
        #expect("   ".dropFirst(0).trimmingBlanks == "")
        #expect("".dropFirst(0).trimmingBlanks == "")
    }
}
