import Foundation
import Testing
import ShopEvents
import ShopTestSupport

@Suite struct SL17TransferTests {
    func importing(_ text: String, into state: ShopState = .initial) throws -> (ShopState, [Command]) {
        let archive = try SL17Archive.parse(Array(text.utf8))
        var state = state
        let commands = SL17Transfer.importCommands(archive, into: state, household: .init(timeZone: "UTC"), ids: .sequential())
        var seq = 0
        for command in commands {
            for event in try ShopDecider.decide(command, state, actor: "ana") {
                seq += 1
                state.apply(event, EventContext(seq: seq, at: .earliest, actor: "ana"))
            }
        }
        return (state, commands)
    }

    /// Found by the fuzzer: an archive whose Unknown Location has another name
    /// was renamed only on the second import, so that import was not empty.
    @Test func anUnknownLocationWithAnotherNameIsRenamedOnTheFirstImport() throws {
        let text = #"[{"id":"532B8FBC-D3E1-49DA-9CD2-650CAAE08797","name":"Elsewhere","visitationOrder":2147483647,"red":0.5,"green":0.5,"blue":0.5,"opacity":0.5,"items":[]}]"#
        let (state, first) = try importing(text)
        #expect(first.map(\.typeName) == ["CreateHousehold", "RecolorLocation", "RenameLocation"])
        #expect(state.locations[.unknown]?.name == "Elsewhere")
        #expect(try importing(text, into: state).1 == [])
    }

    @Test func importKeepsIdsOrderColorsAndTrimsNames() throws {
        let text = #"""
        [{"id":"8D83AF5B-4281-4AD9-8061-09E597156CC4","name":" Dairy ","visitationOrder":18,"red":0,"green":0.1,"blue":0.9,"opacity":0.65,
          "items":[{"id":"B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7","name":"Milk ","onList":true,"isAvailable":false,"quantity":2,"dateLastPurchased":"2024-05-01T17:30:00Z"}]},
         {"id":"0FE45A97-1A14-4BE6-81E1-91E30AFD5672","name":"Bakery","visitationOrder":5,"red":1,"green":1,"blue":1,"opacity":1,"items":[]}]
        """#
        let (state, _) = try importing(text)
        let dairy = LocationID("8D83AF5B-4281-4AD9-8061-09E597156CC4")!, bakery = LocationID("0FE45A97-1A14-4BE6-81E1-91E30AFD5672")!
        let milk = ItemID("B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7")!
        #expect(state.visitingOrder == [bakery, dairy, .unknown])
        #expect(state.locations[dairy]?.name == "Dairy")
        #expect(state.locations[dairy]?.color == Color(red: 0, green: 0.1, blue: 0.9, opacity: 0.65))
        #expect(state.items[milk]?.name == "Milk")
        #expect(state.items[milk]?.isAvailable == false)
        let list = try #require(state.lists.values.first)
        #expect(list.name == "Shopping List")
        #expect(list.entries.map(\.item) == [milk])
        #expect(list.entries.map(\.quantity) == [2])
        #expect(state.purchases.values.map(\.effectiveTime) == [Timestamp("2024-05-01T17:30:00.000Z")!], "the purchase time of the archive, not the time of the import")
        #expect(try importing(text, into: state).1 == [], "a second import adds nothing")
        let exported = SL17Transfer.export(state)
        let (again, _) = try importing(String(decoding: exported.encoded(), as: UTF8.self))
        #expect(again.visitingOrder == state.visitingOrder)
        #expect(again.items == state.items)
        #expect(again.locations == state.locations)
    }
}
