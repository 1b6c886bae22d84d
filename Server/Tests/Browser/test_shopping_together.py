"""Two shoppers at once through the web app: Ben at Rewe, Ana at home. Each
phone shows its own trip as "Your trip" and the other's under "Others
shopping now"; Ana's purchase at home is at no store, Ben's at Rewe; either
may end the other's trip. Found by role, label and accessible name."""
from selenium.webdriver.support.ui import Select

from conftest import verify_journal
from test_every_command import view, eventually
from test_two_phones import start_household, create_list, invite, join, open_list, add


def test_each_shopper_has_their_own_trip(hub, phones, tmp_path):
    ana, ben = phones("ana"), phones("ben")
    start_household(ana, hub)
    create_list(ana, "Weekly")
    add(ana, "Eggs", 1)
    add(ana, "Bread", 1)
    code = invite(ana, "ben")
    join(ben, hub.url, code, "Ben's phone")
    session = ana.session()
    ask = lambda name, **o: view(hub, session["household"], session["token"], name, **o)  # noqa: E731

    # A store, then Ben's trip at it.
    ana.find("link", "Places").click()
    ana.fill("New store", "Rewe")
    ana.button("Create store").click()
    ana.find("link", "Rewe", timeout=10)
    ben.find("link", "Trip").click()
    ben.wait(lambda: [o for o in Select(ben.field("Store")).options if o.text == "Rewe"], 10, "Rewe among the stores")
    Select(ben.field("Store")).select_by_visible_text("Rewe")
    ben.button("Start trip").click()
    ben.find("heading", "Your trip", timeout=10)
    ben.button("End trip", timeout=10)

    # Ana, at home: no trip of her own, Ben's listed with a way to end it.
    ana.find("link", "Trip").click()
    ana.wait(lambda: "You have no trip under way." in ana.text(), 10, "Ana has no trip")
    ana.find("heading", "Others shopping now", timeout=10)
    assert "ben at Rewe" in ana.text()
    ana.button("End ben’s trip", timeout=10)
    ana.button("Start trip")
    ana.screenshot(tmp_path / "trip-others.png")

    # Ana buys Eggs at home: at no store; Ben buys Bread: at Rewe.
    ana.find("link", "Lists").click()
    open_list(ana, "Weekly")
    ana.button("Buy", root=ana.entry("Eggs")).click()
    ben.find("link", "Lists").click()
    open_list(ben, "Weekly")
    ben.button("Buy", root=ben.entry("Bread", timeout=10)).click()
    eventually(lambda: len(ask("audit")["purchases"]) == 2, "both purchases")
    stores = {p["itemName"]: p["storeName"] for p in ask("audit")["purchases"]}
    assert stores == {"Eggs": None, "Bread": "Rewe"}, stores
    household = ask("household")
    assert [t["shopper"] for t in household["trips"]] == ["ben"] and household["trip"] is None, household

    # Ana ends the trip Ben left running; his phone shows none.
    ana.find("link", "Trip").click()
    ana.button("End ben’s trip", timeout=10).click()
    eventually(lambda: ask("household")["trips"] == [], "Ben's trip ended")
    ben.find("link", "Trip").click()
    ben.button("Start trip", timeout=10)

    journal = tmp_path / "journal.ndjson"
    journal.write_bytes(hub.get(f"/v1/households/{session['household']}/journal", session["token"]))
    verify_journal(journal)
