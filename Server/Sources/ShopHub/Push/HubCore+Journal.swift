import Foundation
import ShopEvents

/// A household's whole journal moved out and in through the line store: what `shop-hub household
/// export` and `import` do on any storage that does not do it its own way.
extension HubCore {
    /// Every line the store holds, in order, each with its newline: the journal byte for byte.
    public func export(_ household: HouseholdID) async throws -> [UInt8] {
        let found = try await store.lines(of: household, after: 0, limit: nil, token: nil)
        var out: [UInt8] = []
        out.reserveCapacity(found.lines.reduce(0) { $0 + $1.bytes.count + 1 })
        for line in found.lines {
            out += line.bytes
            out.append(0x0A)
        }
        return out
    }

    /// `bytes`' lines appended to the household if it has none yet (`household_exists` if it has):
    /// each line's chain checked as it is read (its seq the next, its `prev` the hash of the line
    /// before), each command's record made from its lines. `record` records the household (made if
    /// it is not there) once the lines are read, before they are appended.
    public func importJournal(_ household: HouseholdID, journal bytes: [UInt8], record: @Sendable () async throws -> Void) async throws {
        let exists = HubError.conflict("household_exists", "household \(household) has events here already")
        do {
            if try await store.head(of: household, token: nil).seq > 0 { throw exists }
        } catch let error as HubError where error == .unknownHousehold(household.description) {}
        let decided = try Self.imported(bytes)
        try await record()
        let outcomes = try await store.append([HubAppend(household: household, expected: .empty, checked: decided.records.map(\.id), decided: decided)])
        switch outcomes[household] ?? .unknown {
        case .written: return
        case .headMoved, .recorded: throw exists
        case .revoked: throw HubError.unknownToken
        case .unknown: throw HubError.unknownHousehold(household.description)
        }
    }

    /// A journal's lines as lines to append after the empty head, with their commands' records.
    static func imported(_ bytes: [UInt8]) throws -> HubRules.Decided {
        var decided = HubRules.Decided(fold: HubRules.Fold())
        for (index, line) in bytes.split(separator: 0x0A).map(Array.init).enumerated() {
            let head = decided.fold.head
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line), recorded.seq == head.seq + 1, recorded.prev == head.hash else {
                throw HubError.badRequest("line \(index + 1) is not the next event of the chain")
            }
            let hash = SHA256.hash(line)
            let type = CommandType(endingWith: recorded.event.kind)
            if let last = decided.records.last, last.id == recorded.command, last.record.first + last.record.count == recorded.seq {
                decided.records[decided.records.count - 1].record = HubRules.CommandRecord(first: last.record.first, count: last.record.count + 1, type: type)
            } else {
                decided.records.append((recorded.command, HubRules.CommandRecord(first: recorded.seq, count: 1, type: type)))
            }
            decided.fold.head = JournalHead(seq: recorded.seq, hash: hash)
            decided.fold.lastAt = recorded.at
            decided.lines.append(HubRules.Line(event: recorded, bytes: line, hash: hash))
        }
        return decided
    }
}
