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


# What reaches past the screen's right edge (a page that scrolls sideways), the first few; what a closed
# <details> holds is laid out but not shown (checkVisibility).
WIDER = """
const width = document.documentElement.clientWidth;
const wide = [];
if (document.documentElement.scrollWidth > width) wide.push(`the page ${document.documentElement.scrollWidth}px`);
for (const el of document.querySelectorAll('main *, header *, nav *')) {
  const box = el.getBoundingClientRect();
  if (box.width > 0 && box.right > width + 1 && el.checkVisibility() && getComputedStyle(el).position !== 'fixed') wide.push(`${el.tagName} ${(el.textContent || '').trim().slice(0, 20)} ${Math.round(box.right)}px`);
}
return wide.slice(0, 5);
"""


# The arrow, its location's name (the element that describes it) and the other arrow described by it: their middles
# at one height.
ONE_LINE = """
const [down, upName] = arguments;
const name = document.getElementById(down.getAttribute('aria-describedby'));
const up = [...document.querySelectorAll('button[aria-describedby="' + name.id + '"]')].find((b) => b.getAttribute('aria-label') === upName);
const middle = (el) => { const b = el.getBoundingClientRect(); return Math.round(b.top + b.height / 2); };
const at = [middle(name), middle(up), middle(down)];
return { name: name.textContent, at, same: Math.max(...at) - Math.min(...at) <= 4 };
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
        # Nothing wider than the screen (no sideways scrolling), nothing cut at its right edge.
        wide = phone.driver.execute_script(WIDER)
        assert wide == [], f"{prefix} {name}: wider than the screen: {wide}"
        if name == "places":
            # Each location's name and both its arrows on one line (a long name wraps, the arrows do not).
            up, down = ("Nach oben", "Nach unten") if german else ("Move up", "Move down")
            for arrow in phone.all("button", down):
                line = phone.driver.execute_script(ONE_LINE, arrow, up)
                assert line["same"], f"{prefix} places: {line}"
        shot(phone, out / f"{prefix}-{name}.png")


LANGUAGES = {"en": "en-US", "de": "de-DE"}
SCHEMES = ["light", "dark"]


def scheme(phone, value):
    """The phone set to the light or the dark scheme (`prefers-color-scheme`), its colours settled."""
    phone.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": value}]})
    assert phone.driver.execute_script(f"return matchMedia('(prefers-color-scheme: {value})').matches"), value
    # The cards' colours ease over 0.2 s: read once they have settled, as a person sees them.
    phone.driver.execute_async_script(SETTLED)
    return phone


SETTLED = """
const done = arguments[arguments.length - 1];
Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))).then(() => done(true));
"""


def shot(phone, path):
    phone.driver.execute_async_script(SETTLED)
    phone.screenshot(path)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_screen_at_a_phone_and_a_desktop(demo_hub, phones, tmp_path, language):
    """Every screen at each size, light and dark, in one language: `{size}-{language}-{scheme}-{screen}.png`."""
    hub, household, token, journal = demo_hub
    known = ids(journal)
    out = folder(tmp_path)
    de = language == "de"
    for size, dimensions in SIZES.items():
        # A new phone: start or join.
        fresh = phones(f"fresh-{language}-{size}", language=LANGUAGES[language], size=dimensions)
        fresh.open(hub.url)
        fresh.button("Haushalt gründen" if de else "Start a household")
        fresh.driver.execute_script("window.scrollTo(0, 0)")   # the screen as it opens, from its top
        for value in SCHEMES:
            shot(scheme(fresh, value), out / f"{size}-{language}-{value}-welcome.png")
        fresh.quit()
        phone = phones(f"ana-{language}-{size}", language=LANGUAGES[language], size=dimensions)
        sign_in(phone, hub, household, token)
        for value in SCHEMES:
            scheme(phone, value)
            prefix = f"{size}-{language}-{value}"
            walk(phone, hub, known, out, prefix, german=de)
            # A trip running, its timer ticking.
            phone.open(f"{hub.url}/#/trip")
            phone.button("Einkauf starten" if de else "Start trip", timeout=10).click()
            phone.button("Einkauf beenden" if de else "End trip", timeout=10)
            shot(phone, out / f"{prefix}-trip-running.png")
            phone.button("Einkauf beenden" if de else "End trip").click()
            phone.button("Einkauf starten" if de else "Start trip", timeout=10)
            # Suggestions while typing.
            phone.open(f"{hub.url}/#/list/{known['list']}/location")
            phone.heading("Weekly", timeout=10)
            phone.fill("Artikel" if de else "Item", "sal")
            phone.find("option", "Salt", exact=False, timeout=10)
            shot(phone, out / f"{prefix}-suggestions.png")
        # Nothing wider than the screen: no sideways scrolling on any size.
        assert phone.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: wider than the screen"
        phone.quit()


def test_the_german_list_and_household_controls(demo_hub, phones, tmp_path):
    hub, household, token, journal = demo_hub
    known = ids(journal)
    phone = phones("ana-de", language="de-DE")
    sign_in(phone, hub, household, token)
    phone.open(f"{hub.url}/#/list/{known['list']}/location")
    phone.heading("Weekly", timeout=10)
    add_details(phone, "Menge")
    for label in ["Artikel", "Menge"]:
        phone.field(label)
    for button in ["Hinzufügen", "Kaufen"]:
        phone.button(button)
    phone.open(f"{hub.url}/#/trip")
    phone.button("Einkauf starten", timeout=10)
    phone.open(f"{hub.url}/#/household")
    phone.button("Einladen", timeout=10)
