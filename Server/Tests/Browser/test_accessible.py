"""Accessible (docs/APP.md, "Accessible"): axe-core (the axe-selenium-python
package, which bundles it: nothing is fetched) on every screen of the web app
in English and German, each light and dark, online and offline (through the loopback proxy of
test_offline.py, the network cut), the start screen, the Item field with its
suggestions open and changes waiting to send: no critical or serious
violation. Skips, saying so, without the package."""
import pytest

from test_screens import demo_hub, sign_in, ids, screens, scheme, SCHEMES  # noqa: F401 (a fixture)
from test_offline import Proxy, network, controlled

try:
    from axe_selenium_python import Axe
except ImportError:  # pragma: no cover - said in the skip
    Axe = None

LANGUAGES = {"en": "en-US", "de": "de-DE"}
def violations(phone, where):
    """axe-core's critical and serious violations on the page shown, in each colour scheme, each with the elements it names."""
    axe = Axe(phone.driver)
    axe.inject()
    found = []
    for value in SCHEMES:
        scheme(phone, value)
        found += scheme_violations(axe, f"{where} {value}")
    return found


def scheme_violations(axe, where):
    results = axe.run()
    found = []
    for v in results["violations"]:
        if v["impact"] in ("critical", "serious"):
            nodes = "; ".join(f"{n['target']}: {n.get('failureSummary', '').splitlines()[-1].strip()}" for n in v["nodes"][:4])
            found.append(f"{where}: {v['id']} ({v['impact']}) {nodes}")
    return found


def drawn(phone, name, heading):
    if heading:
        phone.heading(heading, timeout=15)
    phone.wait(lambda: "Loading" not in phone.text() and "Lädt" not in phone.text(), 10, f"{name} drawn")


def every_screen(phone, base, known, language, state):
    found = []
    for name, address, heading in screens(known, german=language == "de"):
        phone.open(f"{base}/{address}")
        drawn(phone, name, heading)
        found += violations(phone, f"{language} {state} {name}")
    return found


def suggestions_open(phone, base, known, language, state):
    phone.open(f"{base}/#/list/{known['list']}/location")
    drawn(phone, "list", "Weekly")
    phone.fill("Artikel" if language == "de" else "Item", "sal")
    phone.find("option", "Salt", exact=False, timeout=10)
    return violations(phone, f"{language} {state} suggestions open")


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_no_critical_or_serious_violation_on_any_screen(demo_hub, phones, language):
    if Axe is None:
        pytest.skip("axe-selenium-python is not installed (.ci/run installs it into .build/venv)")
    hub, household, token, journal = demo_hub
    known = ids(journal)
    found = []

    # Signed out: the start and join forms.
    fresh = phones(f"fresh-{language}", language=LANGUAGES[language])
    fresh.open(hub.url)
    fresh.form("Haushalt gründen" if language == "de" else "Start a household")
    found += violations(fresh, f"{language} signed out")
    fresh.quit()

    # Online, through the proxy (so that the same phone can then lose its network), every screen.
    proxy = Proxy(int(hub.url.rsplit(":", 1)[1])).start()
    phone = phones(f"ana-{language}", language=LANGUAGES[language])
    sign_in(phone, proxy, household, token)
    controlled(phone)
    found += every_screen(phone, proxy.url, known, language, "online")
    found += suggestions_open(phone, proxy.url, known, language, "online")

    # Offline: the "Offline" mark, a purchase waiting to send, every screen from the app's kept copy.
    proxy.stop()
    network(phone, online=False)
    phone.open(f"{proxy.url}/#/list/{known['list']}/location")
    drawn(phone, "list", "Weekly")
    row = phone.entry("Milk", timeout=10)
    phone.button("Kaufen" if language == "de" else "Buy", root=row).click()
    phone.wait(lambda: ("wartet" if language == "de" else "waiting") in phone.text(), 10, "a change waiting")
    found += violations(phone, f"{language} offline list with a change waiting")
    found += every_screen(phone, proxy.url, known, language, "offline")
    assert found == [], "\n".join(found)
