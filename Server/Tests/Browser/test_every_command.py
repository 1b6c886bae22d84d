"""What each screen sends, done as a person does it on a household with
months of history (the demo's, imported): an item's details, locations and a
store's own order, a trip paused and resumed, a due staple added in one tap,
a deleted list restored and another purged, a list reordered, its quantities,
assignments and bought entries, roles, a device revoked, the report
downloaded. After each, the hub's own views (asked over HTTP, as any client
asks them) show the change."""
import json
import re
import time
import urllib.error
import urllib.request

import pytest

from test_screens import demo_hub, sign_in, ids  # noqa: F401 (a fixture)


def view(hub, household, token, name, **options):
    """A view as any client asks it (the token shares its rate with the phone: a 429 waits as the hub says)."""
    query = "&".join(f"{k.replace('_', '-')}={urllib.request.quote(str(v))}" for k, v in options.items())
    for _ in range(5):
        try:
            return json.loads(hub.get(f"/v1/households/{household}/views/{name}" + (f"?{query}" if query else ""), token))
        except urllib.error.HTTPError as error:
            if error.code != 429:
                raise
            time.sleep(float(error.headers.get("Retry-After", "1")))
    raise AssertionError(f"view {name}: rate-limited five times")


def eventually(check, what, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not seen within {timeout} s")
        time.sleep(0.25)


def card(phone, text):
    """The card (a list item) that shows `text` as its name."""
    return phone.wait(lambda: next((li for li in phone.driver.find_elements("xpath", f"//main//li[.//*[normalize-space(text())='{text}']]")
                                    if li.is_displayed()), None), 10, f"the card of {text!r}")


def act(step, timeout=10):
    """Does `step` (find, then tap or type); again if the screen was redrawn under it meanwhile, as a person taps again."""
    from selenium.common.exceptions import StaleElementReferenceException, ElementClickInterceptedException
    deadline = time.monotonic() + timeout
    while True:
        try:
            return step()
        except (StaleElementReferenceException, ElementClickInterceptedException):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def more(element):
    """`element` with its "More" open."""
    if not element.find_element("xpath", ".//details").get_attribute("open"):
        element.find_element("xpath", ".//summary").click()
    return element


def confirm(phone):
    phone.wait(lambda: phone.driver.switch_to.alert, 5, "the confirmation").accept()


def test_every_screen_sends_its_commands(demo_hub, phones, tmp_path):
    hub, household, token, journal = demo_hub
    known = ids(journal)
    ask = lambda name, **o: view(hub, household, token, name, **o)  # noqa: E731
    ana = phones("ana", size=(1280, 800))
    sign_in(ana, hub, household, token)
    ana.heading("Lists", timeout=10)

    # An item: created at a location, then its details changed.
    act(lambda: ana.find("link", "Items").click())
    act(lambda: ana.fill("Name", "Quinoa"))
    act(lambda: ana.field("Location").send_keys("Pasta"))
    act(lambda: ana.button("Create item").click())
    ana.heading("Quinoa", timeout=10)
    # Coffee beans has this barcode: refused in words, the form kept as typed.
    for label, value in [("Price", "3,49"), ("Unit", "kg"), ("Barcode", "4006381333931"), ("Category", "Grains"), ("Notes", "organic")]:
        act(lambda: ana.fill(label, value))
    act(lambda: ana.find("field", "Available in the shops").click())
    act(lambda: ana.button("Save").click())
    ana.wait(lambda: [a for a in ana.driver.find_elements("css selector", "[role=alert]") if "Another item has that barcode already." in a.text], 10,
             "the refusal of the barcode, in words")
    assert ana.field("Barcode").get_attribute("value") == "4006381333931"
    act(lambda: ana.fill("Barcode", "4000000000013"))
    act(lambda: ana.button("Save").click())
    try:
        eventually(lambda: ask("item", item="Quinoa")["item"]["barcode"] == "4000000000013", "Quinoa's barcode")
    except AssertionError as error:
        raise AssertionError(f"{error}: {ask('item', item='Quinoa')['item']}{ana.evidence()}")
    item = ask("item", item="Quinoa")["item"]
    assert item["unitPrice"] == 349
    assert (item["locationName"], item["unit"], item["barcode"], item["category"], item["notes"], item["available"]) == \
        ("Pasta & Rice", "kg", "4000000000013", "Grains", "organic", False)

    # Locations: one made and moved up; a store made, its own order set and given back.
    act(lambda: ana.find("link", "Places").click())
    act(lambda: ana.fill("New location", "Garden"))
    act(lambda: ana.button("Create location").click())
    card(ana, "Garden")
    before = [l["name"] for l in ask("locations")["locations"]]
    act(lambda: ana.button("Move up", root=card(ana, "Garden")).click())
    eventually(lambda: [l["name"] for l in ask("locations")["locations"]].index("Garden") == before.index("Garden") - 1, "Garden moved up")
    act(lambda: ana.fill("New store", "Farmers market"))
    act(lambda: ana.button("Create store").click())
    act(lambda: ana.find("link", "Farmers market", timeout=10).click())
    ana.heading("Walk order at Farmers market", timeout=10)
    act(lambda: ana.button("Move down", root=card(ana, "Produce")).click())
    market = lambda: next(s for s in ask("stores")["stores"] if s["name"] == "Farmers market")  # noqa: E731
    eventually(lambda: market()["ownOrder"] != [], "the market's own order")
    act(lambda: ana.button("Use the household’s order", timeout=10).click())
    eventually(lambda: market()["ownOrder"] == [], "the household's order again")

    # A trip at a store, paused, resumed, ended.
    act(lambda: ana.find("link", "Trip").click())
    act(lambda: ana.field("Store").send_keys("Farmers"))
    act(lambda: ana.button("Start trip").click())
    act(lambda: ana.button("Pause trip", timeout=10).click())
    act(lambda: ana.button("Resume trip", timeout=10).click())
    eventually(lambda: ask("household")["trip"] and not ask("household")["trip"]["paused"], "the trip resumed")
    assert ask("household")["trip"]["store"]["name"] == "Farmers market"
    act(lambda: ana.button("End trip", timeout=10).click())
    eventually(lambda: ask("household")["trip"] is None, "the trip ended")

    # A due staple added to Weekly in one tap.
    due = ask("due")["items"][0]
    act(lambda: ana.find("link", "Due").click())
    act(lambda: ana.button("Add to list", root=card(ana, due["name"])).click())
    eventually(lambda: any(e["item"] == due["item"] for e in ask("list-detail", list="Weekly")["entries"]), f"{due['name']} on Weekly")

    # Deleted lists: Party restored (and deleted again from the lists), Hardware store purged.
    act(lambda: ana.find("link", "Lists").click())
    act(lambda: ana.find("link", "Deleted lists", timeout=10).click())
    act(lambda: ana.button("Restore", root=card(ana, "Party")).click())
    eventually(lambda: any(l["name"] == "Party" for l in ask("lists")["lists"]), "Party restored")
    act(lambda: ana.button("Delete for good", root=card(ana, "Hardware store")).click())
    confirm(ana)
    eventually(lambda: all(l["name"] != "Hardware store" for l in ask("deleted-lists")["lists"]), "Hardware store purged")
    act(lambda: ana.find("link", "Back").click())
    act(lambda: ana.button("Delete list", root=more(card(ana, "Party"))).click())
    confirm(ana)
    eventually(lambda: any(l["name"] == "Party" for l in ask("deleted-lists")["lists"]), "Party deleted again")

    # One list: reordered, a quantity changed, an entry assigned and one removed, bought ones cleared.
    ana.driver.get(f"{hub.url}/#/list/{known['list']}/order")
    ana.heading("Weekly", timeout=10)
    first = ask("list-detail", list="Weekly")["entries"][0]
    act(lambda: ana.button("Move down", root=ana.entry(first["name"])).click())
    eventually(lambda: ask("list-detail", list="Weekly")["entries"][1]["item"] == first["item"], f"{first['name']} moved down")
    name = first["name"]
    entry = lambda: more(ana.entry(name))  # noqa: E731
    act(lambda: ana.fill(f"Quantity: {name}", "4", root=entry()))
    act(lambda: ana.button("Change", root=entry().find_element("xpath", ".//form[@data-form='changeQuantity']")).click())
    eventually(lambda: next(e for e in ask("list-detail", list="Weekly")["entries"] if e["item"] == first["item"])["quantity"] == 4, "quantity 4")
    act(lambda: ana.field(f"For: {name}", root=entry()).send_keys("ben"))
    act(lambda: ana.button("Change", root=entry().find_element("xpath", ".//form[@data-form='assign']")).click())
    eventually(lambda: next(e for e in ask("list-detail", list="Weekly")["entries"] if e["item"] == first["item"])["assignee"] == "ben", "assigned to ben")
    act(lambda: ana.button("Remove", root=entry()).click())
    eventually(lambda: all(e["item"] != first["item"] for e in ask("list-detail", list="Weekly")["entries"]), f"{name} removed")
    second = ask("list-detail", list="Weekly")["entries"][0]
    act(lambda: ana.button("Buy", root=ana.entry(second["name"])).click())
    eventually(lambda: ask("list-detail", list="Weekly")["bought"] == 1, "one bought")
    act(lambda: ana.button("Clear bought", timeout=10).click())
    confirm(ana)
    eventually(lambda: ask("list-detail", list="Weekly")["bought"] == 0, "bought cleared")

    # Members and devices: cleo made a viewer; a second device joins and is revoked.
    act(lambda: ana.find("link", "Household").click())
    act(lambda: ana.field("Role: cleo", root=more(card(ana, "cleo"))).send_keys("viewer"))
    act(lambda: ana.button("Change role", root=more(card(ana, "cleo"))).click())
    eventually(lambda: next(m for m in ask("members")["members"] if m["member"] == "cleo")["role"] == "viewer", "cleo a viewer")
    act(lambda: ana.fill("Name of the person invited", "ben"))
    act(lambda: ana.button("Invite").click())
    code = ana.wait(lambda: re.search(r"Invite code for ben: (\S+)", ana.text()), 10, "the code").group(1)
    request = urllib.request.Request(f"{hub.url}/v1/join", data=json.dumps({"code": code, "device": "Tablet of ben"}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    bens = json.loads(urllib.request.urlopen(request).read())["token"]
    assert view(hub, household, bens, "lists")["view"] == "lists"
    ana.driver.refresh()
    act(lambda: ana.button("Revoke", root=card(ana, "Tablet of ben"), timeout=10).click())
    confirm(ana)
    def refused():
        try:
            view(hub, household, bens, "lists")
        except urllib.error.HTTPError as error:
            return error.code == 401
        return False
    try:
        eventually(refused, "the revoked tablet refused")
    except AssertionError as error:
        devices = json.loads(hub.get(f"/v1/households/{household}/devices", token))
        raise AssertionError(f"{error}: {devices}{ana.evidence()}")

    # The report: its figures, and the whole report downloaded as a file.
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    ana.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    act(lambda: ana.find("link", "Report").click())
    ana.wait(lambda: "purchases" in ana.text(), 10, "the report's figures")
    act(lambda: ana.button("Download the full report", timeout=10).click())
    saved = ana.wait(lambda: [p for p in downloads.glob("*-report.html")], 10, "the downloaded report")
    assert saved[0].read_text().startswith("<!DOCTYPE html>") or "<html" in saved[0].read_text()[:500]
