import Foundation

/// References by name in a command line (`"item": "Milk"`), found where the
/// line as written has them, so that the line is read as it was written: every
/// rule on a value (a quantity's exponent, its fraction digits) sees the bytes
/// the user typed, and every byte offset of an error counts in the user's line.
extension CommandCatalog {
    /// How ``decode(_:names:ids:)`` treats references by name.
    ///
    /// ```swift
    /// let names: CommandCatalog.Names = writer.holds(command: id) ? .notLookedUp : .resolve(try writer.refreshedState())
    /// ```
    public enum Names {
        /// Each name is looked up in the state: the live thing of that name
        /// (ignoring case), a live item's barcode, and for `RestoreList` and
        /// `PurgeList` a deleted list by its last name.
        case resolve(ShopState)
        /// No name is looked up; each stands for the nil id. Only for a retry:
        /// a command whose `id` the journal holds already is answered from its
        /// record, whatever its references name now.
        case notLookedUp
    }

    /// What a name that is not looked up stands for.
    private static let nilID = "00000000-0000-0000-0000-000000000000"

    /// One command line decoded with its references by name replaced by ids,
    /// every other byte as written: a number is checked as written, and an
    /// error's offset counts bytes of `line`. The codec's errors
    /// (``CodecError``) come first, then a name that names nothing
    /// (``RuleViolation``: `unknown_item`, `unknown_list`, `ambiguous_name`, …).
    ///
    /// ```swift
    /// let line = #"{"type":"ChangeQuantity","data":{"list":"Weekly","item":"Milk","quantity":2}}"#
    /// let request = try CommandCatalog.decode(Array(line.utf8), names: .resolve(journal.state), ids: .random)
    /// ```
    /// `household`, as for ``CommandCodec/decode(_:ids:household:)``: the id a
    /// `CreateHousehold` that names none takes (a new household's replica).
    public static func decode(_ line: [UInt8], names: Names, ids: IDGenerator, household: HouseholdID? = nil) throws -> CommandEnvelope {
        guard let found = try references(in: line), !found.references.isEmpty else {
            return try CommandCodec.decode(line, ids: ids, household: household)
        }
        var replacements: [String] = []
        var firstFailure: RuleViolation?
        for reference in found.references {
            switch names {
            case .notLookedUp: replacements.append(Self.nilID)
            case let .resolve(state):
                do { replacements.append(try reference.resolve(in: state)) } catch {
                    firstFailure = firstFailure ?? error
                    replacements.append(Self.nilID)
                }
            }
        }
        let spliced = splice(line, found.references, replacements)
        let request: CommandEnvelope
        do { request = try CommandCodec.decode(spliced.bytes, ids: ids, household: household) } catch {
            throw CodecError(error.reason, error.detail, offset: spliced.original(error.offset))
        }
        if let firstFailure { throw firstFailure }
        return request
    }

    /// `true` when a line's data gives a reference (`item`, `list`,
    /// `location`, `store`, `order`) by name rather than by id, or names a
    /// `RevertPurchase`'s purchase by its item or the first digits of its id.
    public static func usesNames(_ line: [UInt8]) -> Bool {
        (try? references(in: line))?.references.isEmpty == false
    }

    /// The line with every reference by name replaced by the id of the thing
    /// of that name in `state` (see ``Names/resolve(_:)``), every other byte
    /// as written. A name nothing has is rejected like an unknown id
    /// (`unknown_item`, `unknown_list`, `unknown_location`, `unknown_store`). A
    /// line that is not a JSON object with a known `type` comes back
    /// unchanged, for the codec to refuse with its own error.
    ///
    /// A `RevertPurchase` may name its purchase by the first digits of its id
    /// (as text views show it), or by `item` (an id or an item's name, deleted
    /// ones too): that item's latest purchase not yet reverted (by when it was bought).
    public static func resolvingNames(in line: [UInt8], state: ShopState) throws(RuleViolation) -> [UInt8] {
        guard let found = try? references(in: line) else { return line }
        var replacements: [String] = []
        for reference in found.references { replacements.append(try reference.resolve(in: state)) }
        return splice(line, found.references, replacements).bytes
    }

    /// The command id a line carries (its top-level `"id"`), read as far as the
    /// line can be read: a refusal of the line names it, also when the line is
    /// not a command.
    ///
    /// ```swift
    /// let cut = #"{"type":"RenameItem","id":"00000000-0000-0000-0000-0000000000C1","data":{"#
    /// print(CommandCatalog.commandID(in: Array(cut.utf8)) as Any)   // the id, though the line is cut short
    /// ```
    public static func commandID(in line: [UInt8]) -> CommandID? {
        line.withUnsafeBytes { raw -> CommandID? in
            var s = JSONScanner(raw)
            var first = true
            do {
                try s.beginObject()
                while let key = try s.nextKey(first: &first) {
                    if s.keyMatches(key, "id") { return (try? s.readUUID("id")).map(CommandID.init) }
                    try s.skipValue(depth: 1)
                }
            } catch {}
            return nil
        }
    }

    /// A reference by name, where the line has it.
    struct Reference {
        enum Kind { case item, list, deletedList, location, store, purchaseOfItem, purchasePrefix }
        var kind: Kind
        var text: String
        /// The bytes it takes in the line: the string with its quotes, or (for
        /// a `RevertPurchase`'s `item`) the whole `"item": …` pair, which
        /// becomes `"purchase": ID`.
        var range: Range<Int>

        /// The id, as text, of what the reference names in `state`.
        func resolve(in state: ShopState) throws(RuleViolation) -> String {
            switch kind {
            case .item: try state.find(item: text).description
            case .list: try state.find(list: text).description
            case .deletedList: try state.find(deletedList: text).description
            case .location: try state.find(location: text).description
            case .store: try state.find(store: text).description
            case .purchaseOfItem: try CommandCatalog.latestPurchase(of: text, in: state).description
            case .purchasePrefix: try CommandCatalog.purchase(startingWith: text, in: state).description
            }
        }

        func replacement(_ id: String) -> String { kind == .purchaseOfItem ? #""purchase":"\#(id)""# : #""\#(id)""# }
    }

    /// The references by name of a command line, in the order the line has
    /// them; `nil` for a line that is not a JSON object with a known `type`
    /// and an object `data` (the codec then refuses it with its own error).
    static func references(in line: [UInt8]) throws(CodecError) -> (type: CommandType, references: [Reference])? {
        let found = line.withUnsafeBytes { raw -> Result<(CommandType, [Reference])?, CodecError> in
            var s = JSONScanner(raw)
            do throws(CodecError) {
                var type: CommandType?, data: Int?
                var first = true
                try s.beginObject()
                while let key = try s.nextKey(first: &first) {
                    if s.keyMatches(key, "type"), s.peek() == UInt8(ascii: "\"") {
                        type = CommandType(rawValue: try s.readString())
                    } else {
                        if s.keyMatches(key, "data") { data = s.position }
                        try s.skipValue(depth: 1)
                    }
                }
                guard let type, let data else { return .success(nil) }
                s.position = data
                guard s.peek() == UInt8(ascii: "{") else { return .success(nil) }
                try s.beginObject()
                first = true
                var references: [Reference] = []
                var purchaseKey: Int?, itemKey: Int?
                while let key = try s.nextKey(first: &first) {
                    let field = s.keyText(key)
                    let kind: Reference.Kind?
                    if type == .revertPurchase {
                        if field == "purchase" { purchaseKey = key.start - 1 }
                        if field == "item" { itemKey = key.start - 1 }
                        kind = field == "item" ? .purchaseOfItem : field == "purchase" ? .purchasePrefix : nil
                    } else if isReference(field, in: type) {
                        switch field {
                        case "order": kind = type == .reorderLocations || type == .reorderStoreLocations ? .location : .item
                        case "list": kind = type == .restoreList || type == .purgeList ? .deletedList : .list
                        case "item": kind = .item
                        case "store": kind = .store
                        default: kind = .location
                        }
                    } else {
                        kind = nil
                    }
                    guard let kind else { try s.skipValue(depth: 2); continue }
                    if s.peek() == UInt8(ascii: "["), field == "order" {
                        s.position += 1
                        var firstElement = true
                        while try s.nextElement(first: &firstElement) {
                            if let name = try nameString(&s, kind: kind, from: nil) { references.append(name) } else { try s.skipValue(depth: 3) }
                        }
                    } else if let name = try nameString(&s, kind: kind, from: kind == .purchaseOfItem ? key.start - 1 : nil) {
                        references.append(name)
                    } else {
                        try s.skipValue(depth: 2)
                    }
                }
                if let itemKey, purchaseKey != nil {
                    throw CodecError(.invalidField, "RevertPurchase names its purchase by \"purchase\" or by \"item\" (its latest purchase), not both", offset: itemKey)
                }
                return .success((type, references))
            } catch where error.reason != .malformedJSON {
                return .failure(error)
            } catch {
                return .success(nil)   // not JSON: the codec says where
            }
        }
        return try found.get()
    }

    /// A string at the scanner that is a name, not an id (a `RevertPurchase`'s
    /// `item` is looked up either way); `nil`, the scanner unmoved, for any other value.
    private static func nameString(_ s: inout JSONScanner, kind: Reference.Kind, from start: Int?) throws(CodecError) -> Reference? {
        guard s.peek() == UInt8(ascii: "\"") else { return nil }
        let at = s.position
        let text = try s.readString()
        guard kind == .purchaseOfItem || UUID(uuidString: text) == nil else { s.position = at; return nil }
        return Reference(kind: kind, text: text, range: (start ?? at)..<s.position)
    }

    /// The line with each reference's bytes replaced, and how to find a byte of it in the line as written.
    private static func splice(_ line: [UInt8], _ references: [Reference], _ ids: [String]) -> Spliced {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(line.count + 64 * references.count)
        var spans: [(original: Range<Int>, spliced: Range<Int>)] = []
        var next = 0
        for (reference, id) in zip(references, ids) {
            bytes += line[next..<reference.range.lowerBound]
            let start = bytes.count
            bytes += Array(reference.replacement(id).utf8)
            spans.append((reference.range, start..<bytes.count))
            next = reference.range.upperBound
        }
        bytes += line[next...]
        return Spliced(bytes: bytes, spans: spans)
    }

    private struct Spliced {
        var bytes: [UInt8]
        var spans: [(original: Range<Int>, spliced: Range<Int>)]

        /// Where byte `offset` of the spliced line was in the line as written (an id put in: where its name was).
        func original(_ offset: Int) -> Int {
            var shift = 0
            for span in spans {
                if offset < span.spliced.lowerBound { break }
                if offset < span.spliced.upperBound { return span.original.lowerBound }
                shift = span.original.upperBound - span.spliced.upperBound
            }
            return offset + shift
        }
    }

    /// The latest purchase of the item `text` names (an id or a name, a deleted item's too) that is not reverted.
    static func latestPurchase(of text: String, in state: ShopState) throws(RuleViolation) -> PurchaseID {
        // A purchase is of the past: its item may be deleted since, and is named by its last name then.
        let id: ItemID
        if let given = ItemID(text) { id = given } else { id = try state.find(item: text, in: .includingDeleted) }
        // Latest by time, then by seq: the ledger is in journal order, so of equal times the later one.
        var latest: PurchaseLedger.Entry?
        for purchase in state.purchases.values where purchase.item == id && !purchase.isReverted
            && purchase.effectiveTime >= latest?.effectiveTime ?? purchase.effectiveTime {
            latest = purchase
        }
        guard let latest else {
            throw RuleViolation(.unknownPurchase, "item \(ShopState.quoted(state.items[id]?.name ?? text)) has no purchase that is not reverted", field: "item")
        }
        return latest.id
    }

    /// The one purchase whose id starts with the hex digits `text` (4 or more, dashes ignored).
    static func purchase(startingWith text: String, in state: ShopState) throws(RuleViolation) -> PurchaseID {
        let digits = text.uppercased().filter { $0 != "-" }
        guard digits.count >= 4, digits.allSatisfy(\.isHexDigit) else {
            throw RuleViolation(.unknownPurchase, "purchase \(ShopState.quoted(text)) is neither an id nor its first 4 or more hex digits", field: "purchase")
        }
        let matches = state.purchases.values.filter { $0.id.description.filter { $0 != "-" }.hasPrefix(digits) }
        guard matches.count == 1, let match = matches.first else {
            throw RuleViolation(.unknownPurchase, matches.isEmpty ? "no purchase id starts with \(text)"
                                : "\(matches.count) purchase ids start with \(text); give more of the id", field: "purchase")
        }
        return match.id
    }
}
