import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Random offline command sequences on 2–4 devices (generated from the
/// deciders against each device's optimistic state), random sync orders,
/// random SIGKILLs of a syncing process — and of its hub with it. Afterwards
/// every device syncs and then pulls once more, and the laws of docs/SYNC.md hold.
/// The command ids in a device's outbox.
func Outbox(_ journal: String) throws -> [CommandID] {
    let bytes = Scratch.bytes(journal + ".outbox")
    return try bytes.split(separator: 0x0A).map { try CommandCodec.decode(Array($0), ids: .random).id! }
}

@Suite("Sync: laws under random histories and SIGKILL")
struct SyncPropertyTests {
    @Test("random offline commands, sync orders and kills: the laws hold", arguments: [11, 23, 37, 41] as [UInt64])
    func laws(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let world = SyncWorld()
        let deviceCount = Int.random(in: 2...4, using: &rng)
        let devices = (0..<deviceCount).map { "d\($0)" }
        let actors = Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($1, RandomCommands.actors[$0]) })
        _ = try world.makeHub(items: ["Milk", "Bread", "Eggs"], onList: ["Milk", "Bread", "Eggs"],
                              members: devices.map { (actors[$0]!, Role.owner) })
        for device in devices { #expect(try world.clone(device, actor: actors[device]!).status == 0) }
        var generators = Dictionary(uniqueKeysWithValues: devices.enumerated().map { index, device in
            (device, RandomCommands(seed: seed &* 31 &+ UInt64(index), ids: .sequential(prefix: 0xD000 + UInt32(index))))
        })
        var kills = 0, killedAfterHubTook = 0
        for _ in 0..<6 {
            for device in devices {
                let replica = try Replica(path: world.path(device), options: .init(actor: actors[device]!))
                for _ in 0..<Int.random(in: 0...8, using: &rng) {
                    let command = generators[device]!.next(for: replica.state)
                    if let outcome = try? replica.execute(command) { world.recordAccepted(device, outcome) }
                }
                #expect(try Replica(path: world.path(device)).state == replica.state, "folding each new command equals folding the outbox again")
            }
            for device in devices.shuffled(using: &rng) where Bool.random(using: &rng) {
                let sync = try ChildProcess(ToolRunner.binary, ["sync", "--journal", world.path(device), "--actor", actors[device]!],
                                            stdout: .null, stderr: .null, newProcessGroup: true)
                if Int.random(in: 0..<100, using: &rng) < 40 {
                    usleep(UInt32.random(in: 0...150_000, using: &rng))
                    sync.killGroup(SIGKILL)
                    kills += 1
                }
                let status = sync.waitForExit()
                #expect([0, 1, 128 + SIGKILL].contains(status))
                if status == 128 + SIGKILL {
                    // Killed after the hub took commands, before the outbox was rewritten: the next sync must not send them twice.
                    let hubCommands = Set(try world.hubEvents().map(\.command))
                    if try Outbox(world.path(device)).contains(where: { hubCommands.contains($0) }) { killedAfterHubTook += 1 }
                }
            }
        }
        for _ in 0..<2 {
            for device in devices {
                let result = try world.sync(device, actor: actors[device]!)
                #expect(result.status == 0 || result.status == 1, "\(device): \(result.stderr)")
            }
        }
        #expect(try world.brokenLaws(devices: devices) == [], "seed \(seed), \(deviceCount) devices, \(kills) kills")
        #expect(world.acceptedLocally.values.map(\.count).reduce(0, +) > 20, "the devices did make changes")
        print("seed \(seed): \(deviceCount) devices, \(kills) kills, \(killedAfterHubTook) after the hub took a push")
    }
}
