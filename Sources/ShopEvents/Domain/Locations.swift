// Locations: the places in the store, their visiting order, and the Unknown
// Location that always comes last and can never be deleted or reordered.

extension ShopDecider {
    static func decideCreateLocation(_ location: LocationID, name: String, color: Color?,
                                     _ state: ShopState) throws(RuleViolation) -> [Event] {
        try state.requireNew(location, field: "location")
        let name = try state.locationNames.available(name, for: location)
        let color = color ?? .grey
        try requireValid(color)
        let last = state.liveLocationIDs.lazy.compactMap { state.locations[$0]?.position }.max() ?? 0
        return [.locationCreated(location: location, name: name, position: last + 1, color: color)]
    }

    static func decideRenameLocation(_ location: LocationID, name: String,
                                     _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveLocation(location)
        let name = try state.locationNames.available(name, for: location)
        return [.locationRenamed(location: location, name: name)]
    }

    static func decideRecolorLocation(_ location: LocationID, color: Color,
                                      _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveLocation(location)
        try requireValid(color)
        return [.locationRecolored(location: location, color: color)]
    }

    /// `positions`, where given, number the stops: one each, strictly
    /// increasing, from 1 and below the Unknown Location's. `unknownAlias` must
    /// be an id the journal does not use for anything else.
    static func decideReorderLocations(_ order: [LocationID], positions: [Int]?, unknownAlias: LocationID?,
                                       _ state: ShopState) throws(RuleViolation) -> [Event] {
        if order.contains(.unknown) {
            throw RuleViolation(.unknownLocationFixed, "order names the Unknown Location, which always comes last and is never reordered", field: "order")
        }
        try ShopState.requireExactly(order, members: state.liveLocationIDs, what: "location")
        if let positions {
            guard positions.count == order.count else {
                throw RuleViolation(.invalidPosition, "positions has \(positions.count) numbers for \(order.count) locations in order; give one each", field: "positions")
            }
            for (index, position) in positions.enumerated() {
                guard position >= 1, position < Limits.unknownLocationPosition else {
                    throw RuleViolation(.invalidPosition, "position \(position) is out of range 1…\(Limits.unknownLocationPosition - 1)", field: "positions")
                }
                if index > 0, position <= positions[index - 1] {
                    throw RuleViolation(.invalidPosition, "positions must increase along the order: \(position) follows \(positions[index - 1])", field: "positions")
                }
            }
        }
        if let unknownAlias, unknownAlias != state.unknownLocationAlias {
            if unknownAlias == .unknown || state.isUsed(unknownAlias.uuid) {
                throw RuleViolation(.idInUse, "unknownAlias \(unknownAlias) is already an id of this journal; an alias is another app's id for the Unknown Location", field: "unknownAlias")
            }
        }
        return [.locationsReordered(order: order, positions: positions, unknownAlias: unknownAlias)]
    }

    /// Relocates the location's items to Unknown first (in id order), then deletes it.
    static func decideDeleteLocation(_ location: LocationID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        if location == .unknown {
            throw RuleViolation(.unknownLocationFixed, "location \(location) is the Unknown Location, which can never be deleted", field: "location")
        }
        _ = try state.requireLiveLocation(location)
        let moved = state.liveItemsAt[location]?.sorted() ?? []   // none to move: always so when verify checks a LocationDeleted
        return moved.map { Event.itemRelocated(item: $0, location: .unknown) } + [.locationDeleted(location: location)]
    }

    static func requireValid(_ color: Color) throws(RuleViolation) {
        guard color.isValid else {
            throw RuleViolation(.invalidColor, "color (\(color.red), \(color.green), \(color.blue), \(color.opacity)) must have every component between 0 and 1", field: "color")
        }
    }
}

extension ShopState {
    mutating func applyLocationCreated(_ id: LocationID, name: String, position: Int, color: Color) {
        locations[id] = Location(id: id, name: name, position: position, color: color)
        countLive(id)
        locationNames.claim(name, by: id)
    }

    mutating func applyLocationRenamed(_ id: LocationID, name: String) {
        guard let old = locations[id] else { return }
        locations.change(id) { $0.name = name }
        locationNames.rename(id, from: old.name, to: name, isLive: !old.isDeleted)
    }

    mutating func applyLocationsReordered(_ order: [LocationID], positions: [Int]?, unknownAlias: LocationID?) {
        for (index, id) in order.enumerated() { locations.change(id) { $0.position = positions?[index] ?? index + 1 } }
        if let unknownAlias { self.unknownLocationAlias = unknownAlias }
    }

    mutating func applyLocationDeleted(_ id: LocationID) {
        guard let old = locations[id] else { return }
        locations.change(id) { $0.isDeleted = true }
        countLive(id)
        locationNames.release(old.name, by: id)
        if !stores.isEmpty { dropFromStoreOrders(id) }
    }
}
