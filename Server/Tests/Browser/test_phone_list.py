"""The list on a phone (docs/APP.md, "Buying on purpose" and "The list first"): tapping an
entry's name opens the item and buys nothing; only "Buy" buys, and every change that takes
an entry off the screen offers Undo (a buy, a remove with its quantity and person); the
bought entries wait in a collapsed "Bought" part of every list view, each with its Undo;
the message never covers the next row. The list starts on the first screen at 390×844;
one field reads "2 l milk" as a quantity, a unit and a name; an entry's location is set
from the list; a store is made where a trip starts; a line's total shows beside its unit
price. Each checked in the hub's own views or journal."""
import os
from decimal import Decimal, ROUND_HALF_EVEN
from pathlib import Path

from selenium.webdriver.support.ui import Select

from test_two_phones import start_at, create_list, disclosure
from test_every_command import view, eventually, act
from test_screens import demo_hub, sign_in, ids  # noqa: F401 (a fixture)


def session_of(phone):
    s = phone.session()
    return s["household"], s["token"]


def ask(hub, phone, name, **options):
    household, token = session_of(phone)
    return view(hub, household, token, name, **options)


def journal(hub, phone):
    household, token = session_of(phone)
    return hub.get(f"/v1/households/{household}/journal", token)


def typed(phone, text, name):
    """Adds by the one field as a person types it; the entry `name` shows."""
    act(lambda: phone.fill("Item", text))
    act(lambda: phone.button("Add").click())
    return phone.entry(name, timeout=10)


def detail(hub, phone, list_id):
    return {e["name"]: e for e in ask(hub, phone, "list-detail", list=list_id)["entries"]}


def list_id(phone):
    return phone.driver.current_url.split("#/list/")[1].split("/")[0]


def bought_part(phone):
    """The collapsed "Bought" part's summary (a disclosure, found by its words)."""
    summary = phone.wait(lambda: next((s for s in phone.driver.find_elements("css selector", "main summary")
                                       if s.is_displayed() and (s.accessible_name or "").startswith("Bought (")), None), 10, "the Bought part")
    phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
    return summary


def is_open(summary):
    return summary.find_element("xpath", "..").get_attribute("open") is not None


def rect(phone, element):
    return phone.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];", element)


def intersects(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_buying_is_deliberate_and_every_removal_has_its_undo(hub, phones):
    ana = phones("ana")
    start_at(ana, hub.url, "The Bergs")
    create_list(ana, "Weekly")
    weekly = list_id(ana)
    for text, name in [("Bread", "Bread"), ("3 Eggs", "Eggs"), ("Milk", "Milk"), ("Tea", "Tea"), ("Butter", "Butter"), ("Cheese", "Cheese"),
                       ("Flour", "Flour"), ("Jam", "Jam"), ("Oil", "Oil"), ("Rice", "Rice")]:
        typed(ana, text, name)

    # The name opens the item; nothing is bought, nothing written.
    before = journal(hub, ana)
    act(lambda: ana.find("link", "Eggs", root=ana.entry("Eggs")).click())
    ana.heading("Eggs", timeout=10)
    assert "#/item/" in ana.driver.current_url
    act(lambda: ana.find("link", "Back").click())
    ana.heading("Weekly", timeout=10)
    ana.button("Buy", root=ana.entry("Eggs"))
    assert journal(hub, ana) == before, "tapping a name wrote to the journal"
    assert not any(e["bought"] for e in detail(hub, ana, weekly).values())

    # Buy: the entry leaves the list; the message offers Undo and does not cover the next row (Butter), now in its place.
    act(lambda: ana.button("Buy", root=ana.entry("Bread")).click())
    toast = ana.alert("Bought Bread")
    eventually(lambda: detail(hub, ana, weekly)["Bread"]["bought"], "Bread bought")
    ana.wait(lambda: "Bread" not in ana.entries(), 10, "Bread off the list to buy")
    assert not intersects(rect(ana, toast), rect(ana, ana.entry("Butter"))), f"the message covers Butter: {rect(ana, toast)} {rect(ana, ana.entry('Butter'))}"
    act(lambda: ana.button("Undo", root=ana.alert("Bought Bread")).click())
    ana.alert("Purchase of Bread undone")
    eventually(lambda: not detail(hub, ana, weekly)["Bread"]["bought"], "Bread to buy again")
    ana.button("Buy", root=ana.entry("Bread", timeout=10))

    # A row bought at the bottom of the screen, just above the sections bar: the message covers neither its place,
    # where the next row (Milk) moves up to, nor that row.
    ana.driver.execute_script("window.scrollTo(0, 0)")
    ana.driver.execute_script("const r = arguments[0].getBoundingClientRect(); window.scrollBy(0, r.bottom - (innerHeight - 60));", ana.entry("Jam"))
    assert abs(rect(ana, ana.entry("Jam"))[3] - (844 - 60)) < 2, rect(ana, ana.entry("Jam"))
    ana.button("Buy", root=ana.entry("Jam")).click()   # in view: not scrolled
    toast = ana.alert("Bought Jam")
    ana.wait(lambda: "Jam" not in ana.entries(), 10, "Jam off the list to buy")
    milk_at, toast_at = rect(ana, ana.entry("Milk")), rect(ana, toast)
    assert not intersects(toast_at, milk_at), f"the message {toast_at} covers Milk {milk_at}"
    act(lambda: ana.button("Undo", root=ana.alert("Bought Jam")).click())
    eventually(lambda: not detail(hub, ana, weekly)["Jam"]["bought"], "Jam to buy again")

    # Remove: its own message with its own Undo (not the last buy's), and back with its quantity and its person.
    act(lambda: ana.find("link", "Eggs", root=ana.entry("Eggs")))   # scrolled to it
    act(lambda: ana.driver.execute_script("arguments[0].open = true", ana.entry("Eggs").find_element("xpath", ".//details")))
    act(lambda: Select(ana.field("For: Eggs")).select_by_visible_text("ana"))
    act(lambda: ana.entry("Eggs").find_element("xpath", ".//form[@data-form='assign']//button").click())
    eventually(lambda: detail(hub, ana, weekly)["Eggs"]["assignee"] == "ana", "Eggs for ana")
    # A purchase's message still showing when Eggs is removed: replaced by the remove's own, with its own Undo.
    act(lambda: ana.button("Buy", root=ana.entry("Flour")).click())
    ana.alert("Bought Flour")
    act(lambda: ana.button("Remove", root=ana.entry("Eggs")).click())
    removed = ana.alert("Removed Eggs")
    shown = [a.text for a in ana.driver.find_elements("css selector", "[role=alert]") if a.is_displayed()]
    assert [t for t in shown if t.strip()] == [removed.text] and "Bought" not in removed.text, shown
    eventually(lambda: "Eggs" not in detail(hub, ana, weekly), "Eggs off the list")
    act(lambda: ana.button("Undo", root=ana.alert("Removed Eggs")).click())
    ana.alert("Eggs is back on the list")
    eventually(lambda: "Eggs" in detail(hub, ana, weekly), "Eggs on the list again")
    eggs = detail(hub, ana, weekly)["Eggs"]
    assert (eggs["quantity"], eggs["assignee"], eggs["bought"]) == (3, "ana", False)
    assert "×3" in ana.entry("Eggs", timeout=10).text

    # The Bought part, collapsed, in every list view, each with its Undo.
    act(lambda: ana.button("Buy", root=ana.entry("Tea")).click())
    eventually(lambda: detail(hub, ana, weekly)["Tea"]["bought"], "Tea bought")
    for tab in ["By location", "By name", "In order"]:
        act(lambda: ana.find("link", tab).click())
        ana.wait(lambda: ana.driver.current_url.endswith({"By location": "/location", "By name": "/name", "In order": "/order"}[tab]), 5, tab)
        summary = bought_part(ana)
        assert summary.text.strip() == "Bought (2)"   # Flour and Tea
        assert not is_open(summary), f"{tab}: the Bought part is open at first"
        assert "Tea" not in ana.entries(), f"{tab}: Tea shows before the Bought part is opened"
        act(lambda: bought_part(ana).click())
        tea = ana.entry("Tea")
        if tab != "In order":
            continue
        act(lambda: ana.button("Undo", root=tea).click())
        eventually(lambda: not detail(hub, ana, weekly)["Tea"]["bought"], "Tea to buy again")
        ana.button("Buy", root=ana.entry("Tea", timeout=10))
    # Undo from the Bought part of "By location" too.
    act(lambda: ana.button("Buy", root=ana.entry("Milk")).click())
    act(lambda: ana.find("link", "By location").click())
    act(lambda: bought_part(ana).click())
    act(lambda: ana.button("Undo", root=ana.entry("Milk")).click())
    eventually(lambda: not detail(hub, ana, weekly)["Milk"]["bought"], "Milk to buy again")

    # Clear bought: no command brings them back, so it is asked first.
    act(lambda: ana.button("Buy", root=ana.entry("Milk", timeout=10)).click())
    eventually(lambda: detail(hub, ana, weekly)["Milk"]["bought"], "Milk bought")
    ana.driver.execute_script("window.asked = []; window.confirm = (q) => { window.asked.push(q); return false; }")
    act(lambda: ana.button("Clear bought", timeout=10).click())
    assert ana.driver.execute_script("return window.asked") == ["Remove the bought entries from this list? This cannot be undone."]
    assert detail(hub, ana, weekly)["Milk"]["bought"]


def test_one_field_reads_quantity_and_unit_and_the_rest_is_on_demand(hub, phones):
    ana = phones("ana")
    start_at(ana, hub.url, "The Bergs")
    create_list(ana, "Weekly")
    weekly = list_id(ana)
    # "More" is closed: one field and "Add".
    assert ana.all("field", "Quantity") == []
    for text, name, quantity, unit in [("2 l milk", "milk", 2, "l"), ("Bananas 1.5 kg", "Bananas", 1.5, "kg"), ("3 eggs", "eggs", 3, None),
                                       ("1,5 kg Äpfel", "Äpfel", 1.5, "kg"), ("bread", "bread", 1, None)]:
        row = typed(ana, text, name)
        eventually(lambda: name in detail(hub, ana, weekly), f"{name} on the list")
        entry = detail(hub, ana, weekly)[name]
        assert (entry["quantity"], entry["unit"]) == (quantity, unit), f"{text!r}: {entry}"
        assert ana.field("Item").get_attribute("value") == ""
    assert "1.5 kg" in ana.entry("Bananas").text and "×3" in ana.entry("eggs").text
    # The full form on demand.
    more = disclosure(ana, "More: quantity, unit, for")
    ana.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", more)
    act(lambda: more.click())
    ana.fill("Quantity", "4")
    ana.fill("Unit", "pack")
    Select(ana.field("For")).select_by_visible_text("ana")
    typed(ana, "Pasta", "Pasta")
    eventually(lambda: "Pasta" in detail(hub, ana, weekly), "Pasta on the list")
    pasta = detail(hub, ana, weekly)["Pasta"]
    assert (pasta["quantity"], pasta["unit"], pasta["assignee"]) == (4, "pack", "ana")
    # A suggestion chosen keeps what was typed in front of the name.
    act(lambda: ana.button("Buy", root=ana.entry("milk")).click())
    eventually(lambda: detail(hub, ana, weekly)["milk"]["bought"], "milk bought")
    act(lambda: ana.fill("Item", "3 l mil"))
    act(lambda: ana.find("option", "milk", exact=False, timeout=10).click())
    assert ana.field("Item").get_attribute("value") == "3 l milk"


def test_location_from_the_list_a_store_where_the_trip_starts(hub, phones):
    ana = phones("ana")
    start_at(ana, hub.url, "The Bergs")
    act(lambda: ana.find("link", "Places").click())
    act(lambda: ana.fill("New location", "Dairy"))
    act(lambda: ana.button("Create location").click())
    eventually(lambda: [l["name"] for l in ask(hub, ana, "locations")["locations"]][0] == "Dairy", "Dairy made")
    act(lambda: ana.find("link", "Lists").click())
    create_list(ana, "Weekly")
    typed(ana, "2 l Milk", "Milk")
    # In the entry's menu: its location, set here.
    act(lambda: ana.driver.execute_script("arguments[0].open = true", ana.entry("Milk").find_element("xpath", ".//details")))
    act(lambda: Select(ana.field("Location: Milk")).select_by_visible_text("Dairy"))
    act(lambda: ana.button("Move", root=ana.entry("Milk")).click())
    eventually(lambda: ask(hub, ana, "item", item="Milk")["item"]["locationName"] == "Dairy", "Milk at Dairy")
    ana.wait(lambda: "Milk" in " ".join(h.text for h in ana.driver.find_elements("xpath", "//main//section[.//h3[normalize-space()='Dairy']]")), 10,
             "Milk under Dairy")

    # A trip at a store made there.
    act(lambda: ana.find("link", "Trip").click())
    act(lambda: Select(ana.field("Store", timeout=10)).select_by_visible_text("New store…"))
    act(lambda: ana.fill("Name of the new store", "Corner shop"))
    act(lambda: ana.button("Start trip").click())
    ana.wait(lambda: "At Corner shop" in ana.text(), 10, "the trip at Corner shop")
    assert [s["name"] for s in ask(hub, ana, "stores")["stores"]] == ["Corner shop"]
    assert ask(hub, ana, "household")["trip"]["store"]["name"] == "Corner shop"


def money(minor):
    return f"€{Decimal(minor) / 100:,.2f}"


def line_total(quantity, price):
    return int((Decimal(str(quantity)) * price).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def screenshots(tmp_path):
    chosen = os.environ.get("SHOP_APP_SCREENSHOTS")
    path = Path(chosen) if chosen else tmp_path / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_the_list_first_on_a_phone_with_line_totals(demo_hub, phones, tmp_path):
    hub, household, token, journal_path = demo_hub
    known = ids(journal_path)
    out = screenshots(tmp_path)
    for language, prefix, heading in [("en-US", "phone-list-first", "Weekly"), ("de-DE", "phone-de-list-first", "Weekly")]:
        phone = phones(f"ana-{language}", language=language)
        sign_in(phone, hub, household, token)
        phone.open(f"{hub.url}/#/list/{known['list']}/location")
        phone.heading(heading, timeout=10)
        phone.wait(lambda: phone.entries(), 10, "the entries")
        phone.driver.execute_script("window.scrollTo(0, 0)")
        # The add form takes at most a quarter of the screen, and the list starts in its upper 60 %, the first entry whole.
        first = phone.driver.find_element("xpath", "(//main//li[.//*[starts-with(@id, 'n-')]])[1]")
        top, bottom = rect(phone, first)[1], rect(phone, first)[3]
        form = rect(phone, phone.driver.find_element("xpath", "//main//form[.//input[@name='item']]"))
        height = phone.driver.execute_script("return window.innerHeight")
        assert height == 844
        assert form[3] - form[1] <= height / 4, f"{language}: the add form {form[3] - form[1]} px high"
        assert top < height * 0.6 and bottom < height - 56, f"{language}: the first entry at {top}–{bottom}"
        phone.screenshot(out / f"{prefix}.png")

    # On a desktop too, the list beside the sections column.
    for language, name in [("en-US", "desktop-list-first"), ("de-DE", "desktop-de-list-first")]:
        desk = phones(f"desk-{language}", language=language, size=(1280, 800))
        sign_in(desk, hub, household, token)
        desk.open(f"{hub.url}/#/list/{known['list']}/location")
        desk.heading("Weekly", timeout=10)
        desk.wait(lambda: desk.entries(), 10, "the entries")
        first = desk.driver.find_element("xpath", "(//main//li[.//*[starts-with(@id, 'n-')]])[1]")
        assert rect(desk, first)[3] < 800, f"{language}: the first entry below the screen on a desktop"
        desk.screenshot(out / f"{name}.png")

    # Line totals beside unit prices, as the hub counts the entry's quantity and price.
    phone = phones("ana-totals")
    sign_in(phone, hub, household, token)
    phone.open(f"{hub.url}/#/list/{known['list']}/location")
    phone.heading("Weekly", timeout=10)
    shown = view(hub, household, token, "shopping-list-by-location", list=known["list"])
    priced = [e for s in shown["sections"] for e in s["entries"] if e.get("unitPrice") is not None and e["quantity"] != 1]
    assert priced, "the demo list has an entry of more than one with a price"
    for e in priced:
        each = f"{money(e['unitPrice'])}/{e['unit']}" if e["unit"] else f"{money(e['unitPrice'])} each"
        expected = f"{each} — {money(line_total(e['quantity'], e['unitPrice']))}"
        phone.wait(lambda: expected in phone.entry(e["name"]).text, 10, f"{e['name']}: {expected!r}")

    # Bought: the entry in the open "Bought" part, the message with its Undo (a screenshot for docs/APP.md).
    first = next(iter(phone.entries()))
    act(lambda: phone.button("Buy", root=phone.entry(first)).click())
    phone.alert(f"Bought {first}")
    act(lambda: bought_part(phone).click())
    phone.button("Undo", root=phone.entry(first, timeout=10))
    phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", bought_part(phone))
    phone.alert(f"Bought {first}")
    phone.screenshot(out / "phone-list-bought.png")
