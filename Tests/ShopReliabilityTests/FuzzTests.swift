import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Mutated and random inputs for the three readers of outside bytes: the
/// journal line decoder, the command decoder and the ShoppingList17 importer.
/// None may crash or hang, and none may accept what is not what it reads.
/// 100,000 cases with a fixed seed in CI; `SHOP_FUZZ_CASES` asks for more,
/// `SHOP_FUZZ_SEED` for another seed.
@Suite struct FuzzTests {
    static let cases = Int(ProcessInfo.processInfo.environment["SHOP_FUZZ_CASES"] ?? "") ?? 100_000
    static let seed = UInt64(ProcessInfo.processInfo.environment["SHOP_FUZZ_SEED"] ?? "") ?? 17

    /// Inputs that once broke a reader; each is kept here as a regression case.
    static let regressions: [String] = [
        #"{"seq":1,"id":"00000000-0000-0000-0000-00000000000A","type":"ItemDeleted","v":1,"at":"2026-03-01T09:00:00.000Z","actor":"a","command":"00000000-0000-0000-0000-00000000000B","data":{"item":"E976A9E1-0806-4504-99BF-116004C8DED9"},"prev":"0000000000000000000000000000000000000000000000000000000000000000"#,
        "{\"a\":\"\\",
        "{\"seq\":1,\"x\":\"\\ud800\\u0041\"}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        "{\"seq\":-9223372036854775808}",
        "{\"seq\":99999999999999999999999999}",
        "\u{FEFF}{}",
    ]

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !bytes.isEmpty else { return [UInt8.random(in: 0...255, using: &rng)] }
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            case 1: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 2: bytes.remove(at: at)
            case 3: bytes.insert(Array("\"\\{}[],:0-.eE".utf8).randomElement(using: &rng)!, at: at)
            case 4: bytes = Array(bytes[..<at])
            case 5:   // repeat a slice
                let end = Swift.min(bytes.count, at + Int.random(in: 1...20, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            default: bytes[at] = Array("09afAF\"\\u".utf8).randomElement(using: &rng)!
            }
        }
        return bytes
    }

    /// Whatever we accept, an independent JSON parser accepts too, and it reads back the same.
    static func independentlyValid(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any]
    }

    @Test func theLineDecoder() throws {
        var rng = SplitMix64(seed: Self.seed)
        var events = RandomEventLines(seed: Self.seed)
        var accepted = 0
        let inputs = Self.regressions.map { Array($0.utf8) }
        for index in 0..<Self.cases {
            let input = index < inputs.count ? inputs[index]
                : index % 10 == 0 ? (0..<Int.random(in: 0...80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                : Self.mutate(events.next(), &rng)
            guard let decoded = try? EventLineCodec.decode(input) else { continue }
            accepted += 1
            #expect(Self.independentlyValid(input), "accepted what is not JSON: \(String(decoding: input, as: UTF8.self))")
            #expect(try EventLineCodec.decode(EventLineCodec.encode(decoded)) == decoded)
        }
        print("fuzz: line decoder, \(Self.cases) cases (seed \(Self.seed)), \(accepted) accepted and consistent, 0 crashes")
    }

    @Test func theCommandDecoder() throws {
        var rng = SplitMix64(seed: Self.seed &+ 1)
        // A pool of valid commands of every type, from a history that grows as they are accepted.
        var generator = RandomCommands(seed: Self.seed)
        var state = ShopState.initial
        var seq = 0
        var pool: [[UInt8]] = []
        while pool.count < 3_000 {
            let command = generator.next(for: state)
            pool.append(CommandCodec.encode(CommandEnvelope(command, id: generator.ids.make(), actor: "ana")))
            if let events = try? ShopDecider.decide(command, state, actor: "ana") {
                for event in events { seq += 1; state.apply(event, EventContext(seq: seq, at: .earliest, actor: "ana")) }
            }
        }
        var accepted = 0
        let cases = Self.cases / 2
        for index in 0..<cases {
            let valid = pool[index % pool.count]
            let input = index % 10 == 0 ? (0..<Int.random(in: 0...60, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                : Self.mutate(valid, &rng)
            guard let decoded = try? CommandCodec.decode(input, ids: .sequential()) else { continue }
            accepted += 1
            #expect(Self.independentlyValid(input), "accepted what is not JSON: \(String(decoding: input, as: UTF8.self))")
            #expect(try CommandCodec.decode(CommandCodec.encode(decoded), ids: .sequential()) == decoded)
            _ = try? ShopDecider.decide(decoded.command, state, actor: "ana")   // and the rules take whatever it is without crashing
        }
        print("fuzz: command decoder, \(cases) cases, \(accepted) accepted and consistent, 0 crashes")
    }

    static let smallArchive = #"""
    [{"id":"532B8FBC-D3E1-49DA-9CD2-650CAAE08797","name":"Unknown Location","visitationOrder":2147483647,"red":0.5,"green":0.5,"blue":0.5,"opacity":0.5,
      "items":[{"id":"E976A9E1-0806-4504-99BF-116004C8DED9","name":"Gloves","onList":false,"isAvailable":true,"quantity":1}]},
     {"id":"8D83AF5B-4281-4AD9-8061-09E597156CC4","name":" Dairy ","visitationOrder":18,"red":0,"green":0.1,"blue":0.9,"opacity":0.65,
      "items":[{"id":"B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7","name":"Milk ","onList":true,"isAvailable":false,"quantity":2,"dateLastPurchased":"2024-05-01T17:30:00Z"},
               {"id":"D3521F21-9530-4093-943D-FD184EB7D74E","name":"Butter","onList":false,"isAvailable":true,"quantity":1}]}]
    """#

    @Test func theArchiveImporter() throws {
        var rng = SplitMix64(seed: Self.seed &+ 2)
        let valid = Array(Self.smallArchive.utf8)
        let fixture = Fixtures.sl17
        var accepted = 0, imported = 0
        let cases = Self.cases / 5
        for index in 0..<cases {
            let base = index % 100 == 0 && fixture != nil ? fixture! : valid
            let input = index % 10 == 0 ? (0..<Int.random(in: 0...80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                : Self.mutate(base, &rng)
            guard let archive = try? SL17Archive.parse(input) else { continue }
            accepted += 1
            #expect((try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])) is [Any])
            var state = ShopState.initial
            var seq = 0
            var allAccepted = true
            for command in SL17Transfer.importCommands(archive, into: state, ids: .sequential()) {
                guard let events = try? ShopDecider.decide(command, state, actor: "ana") else { allAccepted = false; continue }
                for event in events { seq += 1; state.apply(event, EventContext(seq: seq, at: .earliest, actor: "ana")) }
            }
            if allAccepted {
                imported += 1
                #expect(SL17Transfer.importCommands(archive, into: state, ids: .sequential()).isEmpty, "a second import adds nothing")
            }
        }
        print("fuzz: archive importer, \(cases) cases, \(accepted) parsed, \(imported) imported whole, 0 crashes")
    }
}

/// Valid journal lines of every type, to mutate: a pool made once, then taken in turn.
struct RandomEventLines {
    private var pool: [[UInt8]] = []
    private var cursor = 0

    init(seed: UInt64, count: Int = 3_000) {
        var generator = RandomCommands(seed: seed)
        let ids = IDGenerator.sequential(prefix: 0xF022)
        var state = ShopState.initial
        var seq = 0
        while pool.count < count {
            let command = generator.next(for: state)
            guard let events = try? ShopDecider.decide(command, state, actor: "ana") else { continue }
            for event in events {
                seq += 1
                let recorded = RecordedEvent(seq: seq, id: ids.make(), at: TestClock.start, actor: "ana", device: seq % 3 == 0 ? "phone" : nil,
                                             command: ids.make(), event: event, prev: SHA256.hash(Array("\(seq)".utf8)))
                state.apply(recorded)
                pool.append(EventLineCodec.encode(recorded))
            }
        }
    }

    mutating func next() -> [UInt8] {
        defer { cursor = (cursor + 1) % pool.count }
        return pool[cursor]
    }
}
