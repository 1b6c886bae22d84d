"""Several households in one browser (docs/APP.md, "Several households"): Ana's phone starts a household
(the family), then joins another (a shared flat, Ben's invite). Each keeps its own token; a switcher on the
household screen opens either, each with its own lists, also without a network; what waits in one
household's outbox stays with it; signing out of one leaves the other on the phone, working."""
import json
import os
from pathlib import Path

from test_two_phones import start_at, create_list, invite, open_list, add, seen_within
from test_offline import Proxy, network, controlled, OUTBOX
from selenium.webdriver.support.ui import Select

CACHES = """
const done = arguments[arguments.length - 1];
caches.keys().then(done, () => done(null));
"""


def lists_shown(phone):
    """The names of the lists on the Lists screen, once it shows some (read again if redrawn meanwhile)."""
    phone.heading("Lists", timeout=10)

    def names():
        links = phone.driver.find_elements("xpath", "//main//a[contains(@href, '#/list/')]")
        return sorted(a.text.split("\n")[0] for a in links if a.is_displayed())
    return phone.wait(names, 10, "the lists")


def sessions(phone):
    return json.loads(phone.driver.execute_script("return localStorage.getItem('shopevents.sessions')") or "[]")


def household_screen(phone):
    """The household screen, once its members are drawn (what an owner sees more may still come)."""
    phone.find("link", "Household").click()
    phone.wait(lambda: "you (" in phone.text(), 10, "the household's members")


def tap(phone, name):
    """Taps the button `name`, again if the screen was redrawn under the finger (regions above it filled meanwhile)."""
    phone.wait(lambda: phone.button(name, timeout=10).click() or True, 10, f"{name!r} tapped")


def switch_to(phone, name):
    household_screen(phone)
    tap(phone, f"Open {name}")
    return lists_shown(phone)


def test_one_phone_holds_two_households_switches_between_them_and_signs_out_of_one(hub, phones, tmp_path):
    proxy = Proxy(int(hub.url.rsplit(":", 1)[1])).start()
    ana = phones("ana")
    # The family: started on Ana's phone (through a proxy the test can cut), a list with Milk.
    start_at(ana, proxy.url, "The Bergs")
    controlled(ana)
    create_list(ana, "Weekly")
    add(ana, "Milk", 1)

    # The shared flat: started on Ben's phone, a list with Coffee; Ben invites Ana.
    ben = phones("ben")
    start_at(ben, hub.url, "Shared flat", actor="ben")
    create_list(ben, "Flat groceries")
    add(ben, "Coffee", 1)
    code = invite(ben, "ana")

    # Ana joins it from the household screen; the family stays on her phone.
    household_screen(ana)
    ana.wait(lambda: "The Bergs (open now)" in ana.text(), 5, "the family open now")
    ana.find("link", "Start or join another household").click()
    ana.find("link", "Back to The Bergs")
    if os.environ.get("SHOP_APP_SCREENSHOTS"):
        ana.screenshot(Path(os.environ["SHOP_APP_SCREENSHOTS"]) / "phone-household-add.png")
    form = ana.form("Join a household")
    ana.fill("Invite code", code, root=form)
    ana.fill("Device name", "Ana's phone", root=form)
    ana.button("Join", root=form).click()
    assert lists_shown(ana) == ["Flat groceries"]
    assert [s["household"] for s in sessions(ana)] == [s["household"] for s in sessions(ana)]
    kept = sessions(ana)
    assert [s.get("name") for s in kept] == ["The Bergs", "Shared flat"], kept
    assert len({s["token"] for s in kept}) == 2, "each household its own token"
    assert ana.session()["household"] == kept[1]["household"]

    # The switcher: each household shows its own lists.
    household_screen(ana)
    ana.wait(lambda: "Shared flat (open now)" in ana.text(), 5, "the flat open now")
    shots = os.environ.get("SHOP_APP_SCREENSHOTS")
    ana.find("heading", "Households on this phone")
    if shots:
        ana.screenshot(Path(shots) / "phone-households.png")
    # In German too: the switcher's words.
    Select(ana.field("Language")).select_by_visible_text("Deutsch")
    ana.wait(lambda: "Shared flat (jetzt offen)" in ana.text(), 5, "the switcher in German")
    ana.find("heading", "Haushalte auf diesem Telefon")
    ana.button("The Bergs öffnen")
    if shots:
        ana.screenshot(Path(shots) / "phone-de-households.png")
    Select(ana.field("Sprache")).select_by_visible_text("English")
    ana.find("heading", "Households on this phone")
    assert switch_to(ana, "The Bergs") == ["Weekly"]
    open_list(ana, "Weekly")
    ana.entry("Milk")
    assert switch_to(ana, "Shared flat") == ["Flat groceries"]
    open_list(ana, "Flat groceries")
    ana.entry("Coffee")
    # Live in the household open now: Ben's Tea shows on Ana's phone.
    ben.find("link", "Lists").click()
    open_list(ben, "Flat groceries")
    add(ben, "Tea", 1)
    seen_within(ana, lambda: "Tea" in ana.entries(), "Tea on the flat's list")

    # Without a network: the switcher opens the family from what the phone kept; a purchase there waits
    # in the family's outbox, not the flat's.
    proxy.stop()
    network(ana, online=False)
    assert switch_to(ana, "The Bergs") == ["Weekly"]
    open_list(ana, "Weekly")
    ana.button("Buy", root=ana.entry("Milk")).click()
    ana.wait(lambda: "1 change waiting" in ana.text(), 5, "Milk waiting")
    waiting = ana.driver.execute_async_script(OUTBOX.replace("entry.command", "entry"))
    assert [(w["household"], w["command"]["type"]) for w in waiting] == [(kept[0]["household"], "PurchaseItem")]
    assert switch_to(ana, "Shared flat") == ["Flat groceries"]
    assert "waiting" not in ana.driver.find_element("id", "live").text, "the flat has nothing waiting"

    # Back online while the flat is open: the family's purchase is sent too, with the family's token.
    proxy.start()
    network(ana, online=True)
    ana.wait(lambda: ana.driver.execute_async_script(OUTBOX) == [], 15, "the family's outbox sent")
    family = [json.loads(line) for line in hub.get(f"/v1/households/{kept[0]['household']}/journal", kept[0]["token"]).decode().splitlines()]
    assert [line["command"] for line in family if line["type"] == "ItemPurchased"] == [waiting[0]["command"]["id"]], family
    assert ana.session()["household"] == kept[1]["household"], "the flat still open"
    switch_to(ana, "The Bergs")

    # Signed out of the family: the flat stays, open, and works; the family's kept views go, the flat's stay.
    household_screen(ana)
    tap(ana, "Sign out on this device")
    ana.wait(lambda: ana.driver.switch_to.alert, 5, "the confirmation").accept()
    assert lists_shown(ana) == ["Flat groceries"]
    assert [s["household"] for s in sessions(ana)] == [kept[1]["household"]]
    assert ana.session()["household"] == kept[1]["household"]
    views = ana.driver.execute_async_script(CACHES)
    assert not [k for k in views if k.startswith(f"views-{kept[0]['household']}")], views
    assert [k for k in views if k.startswith(f"views-{kept[1]['household']}")], views
    open_list(ana, "Flat groceries")
    add(ana, "Sugar", 1)
    seen_within(ben, lambda: "Sugar" in ben.entries(), "Ana's Sugar on Ben's phone")
    household_screen(ana)
    ana.wait(lambda: "Shared flat (open now)" in ana.text(), 5, "the flat alone")
    assert not ana.all("button", "Open The Bergs")
    # The family's token no longer works.
    try:
        hub.get(f"/v1/households/{kept[0]['household']}/views/lists", kept[0]["token"])
        raise AssertionError("the family's token still works after the sign-out")
    except Exception as error:
        assert "401" in str(error), error
    proxy.stop()
