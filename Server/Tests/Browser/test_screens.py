"""Every screen of the web app on a household with months of history (the
demo's journal, imported into the hub), at a phone's 390×844 and a desktop's
1280×800, in English and German, light and dark: each shows its heading, its
content and no refusal. Screenshots go to $SHOP_APP_SCREENSHOTS when it names
a folder (docs/images/app holds the ones docs/APP.md shows), else to the
test's scratch folder, so that a person can look at them."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import Hub, REPLAY
from test_two_phones import add_details

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


@pytest.fixture
def demo_hub(tmp_path):
    journal = tmp_path / "demo.ndjson"
    subprocess.run([str(REPLAY), "demo", "--journal", str(journal)], check=True, capture_output=True)
    household = json.loads(journal.read_text().splitlines()[0])["data"]["household"]
    hub = Hub("files", tmp_path)
    token = hub.import_journal(household, journal, "Ana's phone", "ana")
    hub.start()
    yield hub, household, token, journal
    hub.stop()


def sign_in(phone, hub, household, token):
    phone.open(hub.url)
    session = {"household": household, "token": token, "actor": "ana", "device": "Ana's phone"}
    phone.driver.execute_script("localStorage.setItem('shopevents.session', arguments[0])", json.dumps(session))
    phone.open(hub.url + "/#/lists")
    phone.driver.refresh()   # the page reads its session when it loads


def ids(journal):
    found = {}
    for line in journal.read_text().splitlines():
        event = json.loads(line)
        data = event["data"]
        if event["type"] == "ListCreated":
            found.setdefault("list", data["list"])
        if event["type"] == "ItemCreated" and data["name"] == "Milk":
            found["item"] = data["item"]
        if event["type"] == "StoreCreated":
            found.setdefault("store", data["store"])
    return found


def screens(known, german=False):
    """(file name, address, the heading it shows)."""
    de = german
    return [
        ("lists", "#/lists", "Listen" if de else "Lists"),
        ("list-by-location", f"#/list/{known['list']}/location", "Weekly"),
        ("list-by-name", f"#/list/{known['list']}/name", "Weekly"),
        ("list-in-order", f"#/list/{known['list']}/order", "Weekly"),
        ("items", "#/items", "Artikel" if de else "Items"),
        ("items-by-date", "#/items/date", "Artikel" if de else "Items"),
        ("item", f"#/item/{known['item']}", "Milk"),
        ("places", "#/places", "Orte und Geschäfte" if de else "Locations and stores"),
        ("store-order", f"#/store/{known['store']}", None),
        ("trip", "#/trip", "Einkauf" if de else "Shopping trip"),
        ("due", "#/due", "Wieder fällig" if de else "Due again"),
        ("deleted-lists", "#/deleted", "Gelöschte Listen" if de else "Deleted lists"),
        ("household", "#/household", "The Berg family"),
        ("report", "#/report", "Bericht" if de else "Report"),
    ]


# Every control a finger taps, at least 44 × 44 CSS pixels (a checkbox by its whole label).
SMALL_TARGETS = """
const small = [];
for (const el of document.querySelectorAll('button, a[href], input, select, textarea, summary, [role=option]')) {
  const target = el.type === 'checkbox' ? el.closest('label') : el;
  const box = target.getBoundingClientRect();
  if ((box.width === 0 && box.height === 0) || box.right <= 0) continue;   // hidden, or the skip link off screen
  if (box.width < 44 || box.height < 44) small.push(`${el.tagName} ${(el.textContent || el.name || '').trim().slice(0, 20)} ${Math.round(box.width)}x${Math.round(box.height)}`);
}
return small;
"""


def folder(tmp_path):
    chosen = os.environ.get("SHOP_APP_SCREENSHOTS")
    path = Path(chosen) if chosen else tmp_path / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def walk(phone, hub, known, out, prefix, german=False):
    for name, address, heading in screens(known, german):
        phone.open(f"{hub.url}/{address}")
        if heading:
            phone.heading(heading, timeout=10)
        # Its content drawn: no "Loading…" left, no refusal shown.
        phone.wait(lambda: "Loading" not in phone.text() and "Lädt" not in phone.text(), 10, f"{name} drawn")
        alerts = [a.text for a in phone.driver.find_elements("css selector", "[role=alert]") if a.is_displayed()]
        assert alerts == [], f"{name}: {alerts}"
        small = phone.driver.execute_script(SMALL_TARGETS)
        assert small == [], f"{name}: touch targets under 44 px: {small}"
        phone.screenshot(out / f"{prefix}-{name}.png")


def test_every_screen_at_a_phone_and_a_desktop(demo_hub, phones, tmp_path):
    hub, household, token, journal = demo_hub
    known = ids(journal)
    out = folder(tmp_path)
    for size, dimensions in SIZES.items():
        phone = phones(f"ana-{size}", size=dimensions)
        sign_in(phone, hub, household, token)
        walk(phone, hub, known, out, size)
        # A trip running, its timer ticking.
        phone.open(f"{hub.url}/#/trip")
        phone.button("Start trip", timeout=10).click()
        phone.button("End trip", timeout=10)
        phone.screenshot(out / f"{size}-trip-running.png")
        phone.button("End trip").click()
        phone.button("Start trip", timeout=10)
        # Suggestions while typing.
        phone.open(f"{hub.url}/#/list/{known['list']}/location")
        phone.heading("Weekly", timeout=10)
        phone.fill("Item", "sal")
        phone.find("option", "Salt", exact=False, timeout=10)
        phone.screenshot(out / f"{size}-suggestions.png")
    # A new phone: start or join.
    fresh = phones("fresh")
    fresh.open(hub.url)
    fresh.button("Start a household")
    fresh.screenshot(out / "phone-welcome.png")
    # Dark, as a phone set to it shows the app.
    dark = phones("ana-dark")
    dark.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    sign_in(dark, hub, household, token)
    dark.open(f"{hub.url}/#/list/{known['list']}/location")
    dark.heading("Weekly", timeout=10)
    dark.wait(lambda: "Loading" not in dark.text(), 10, "the list drawn")
    dark.screenshot(out / "phone-dark-list-by-location.png")


def test_every_screen_in_german(demo_hub, phones, tmp_path):
    hub, household, token, journal = demo_hub
    known = ids(journal)
    phone = phones("ana-de", language="de-DE")
    sign_in(phone, hub, household, token)
    walk(phone, hub, known, folder(tmp_path), "phone-de", german=True)
    phone.open(f"{hub.url}/#/list/{known['list']}/location")
    add_details(phone, "Menge")
    for label in ["Artikel", "Menge"]:
        phone.field(label)
    for button in ["Hinzufügen", "Kaufen"]:
        phone.button(button)
    phone.open(f"{hub.url}/#/trip")
    phone.button("Einkauf starten", timeout=10)
    phone.open(f"{hub.url}/#/household")
    phone.button("Einladen", timeout=10)
