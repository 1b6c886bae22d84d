import Foundation

// Household: the first command of every journal, and the Unknown Location it brings.

extension ShopDecider {
    /// The time zone is checked against this machine's time zone database only
    /// here, when the household is created: `verify` re-decides without it
    /// (`checkTimeZone: false`), so it gives the same answer on every machine.
    static func decideCreateHousehold(_ household: HouseholdID, name: String, currency: String, timeZone: String,
                                      _ state: ShopState, checkTimeZone: Bool = true) throws(RuleViolation) -> [Event] {
        if let existing = state.household {
            throw RuleViolation(.householdExists, "this journal already belongs to household \(existing.id) (\(ShopState.quoted(existing.name))); CreateHousehold comes once")
        }
        let name = try ShopState.validName(name)
        guard currency.utf8.count == 3, currency.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            throw RuleViolation(.invalidCurrency, "currency \(ShopState.quoted(currency)) is not an ISO 4217 code such as EUR or USD", field: "currency")
        }
        guard !checkTimeZone || TimeZone(identifier: timeZone) != nil, timeZone.contains("/") || timeZone == "UTC" else {
            throw RuleViolation(.invalidTimeZone, "timeZone \(ShopState.quoted(timeZone)) is not an IANA time zone such as Europe/Berlin", field: "timeZone")
        }
        if household.uuid == LocationID.unknown.uuid {
            throw RuleViolation(.idInUse, "household \(household) is the Unknown Location's fixed id", field: "household")
        }
        return [.householdCreated(household: household, name: name, currency: currency, timeZone: timeZone)]
    }
}

extension ShopState {
    mutating func applyHouseholdCreated(_ id: HouseholdID, name: String, currency: String, timeZone: String) {
        household = Household(id: id, name: name, currency: currency, timeZone: timeZone)
        let unknown = Location(id: .unknown, name: "Unknown Location", position: Limits.unknownLocationPosition,
                               color: .grey)
        locations[.unknown] = unknown
        locationNames.claim(unknown.name, by: .unknown)
    }
}
