"""A family opens the hub at a home address over plain HTTP (docs/APP.md, "At home"): `http://shop.lan:PORT`,
a name chromium maps to the hub's loopback address, is no secure context (no crypto.randomUUID, no
crypto.subtle, no service worker). Two phones start a household, invite, join, add and buy, live, as on
localhost; the app says in English and German that working offline needs HTTPS, and links to how."""
import os
from pathlib import Path

from test_two_phones import start_at, create_list, invite, join, open_list, add, seen_within
from test_offline import Proxy, journal_lines, each_command_once
from test_two_phones import open_bought

HOME_NAME = "shop.lan"
MAPPED = [f"--host-resolver-rules=MAP {HOME_NAME} 127.0.0.1"]


def insecure(phone):
    """What the page has: a secure context, randomUUID, subtle, a service worker."""
    return phone.driver.execute_script("""return {secure: window.isSecureContext, randomUUID: typeof crypto.randomUUID,
        subtle: typeof crypto.subtle, serviceWorker: 'serviceWorker' in navigator}""")


def test_the_app_at_a_home_address_over_plain_http_works_online_and_says_offline_needs_https(hub, phones, tmp_path):
    port = hub.url.rsplit(":", 1)[1]
    home = f"http://{HOME_NAME}:{port}"
    ana = phones("ana", arguments=MAPPED)
    ana.open(home)
    assert insecure(ana) == {"secure": False, "randomUUID": "undefined", "subtle": "undefined", "serviceWorker": False}

    # Said on the start screen, with a link to the page saying how.
    ana.wait(lambda: "Working offline needs HTTPS" in ana.text(), 5, "the word on HTTPS")
    if os.environ.get("SHOP_APP_SCREENSHOTS"):
        ana.screenshot(Path(os.environ["SHOP_APP_SCREENSHOTS"]) / "phone-welcome-http.png")
    ana.find("link", "How to set up HTTPS").click()
    ana.heading("Offline needs HTTPS")
    assert f"This app is open at {home} over plain HTTP." in ana.text()
    assert "shop-hub serve --tls-cert cert.pem --tls-key key.pem" in ana.text()
    assert "Caddy in front of the server" in ana.text()
    if os.environ.get("SHOP_APP_SCREENSHOTS"):
        ana.screenshot(Path(os.environ["SHOP_APP_SCREENSHOTS"]) / "phone-https-help.png")
    ana.find("link", "Back").click()

    # Start, invite, join, add, buy: all of it, live on the other phone.
    start_at(ana, home, "The Bergs")
    create_list(ana, "Weekly")
    code = invite(ana, "ben")
    ana.wait(lambda: "Working offline needs HTTPS" in ana.text(), 5, "the word on HTTPS on the household screen")
    ben = phones("ben", arguments=MAPPED)
    join(ben, home, code, "Ben's phone")
    open_list(ben, "Weekly")
    ana.find("link", "Lists").click()
    open_list(ana, "Weekly")
    add(ana, "Milk", 2)
    seen_within(ben, lambda: "Milk" in ben.entries(), "Milk on the list")
    add(ben, "Äpfel", 3)
    seen_within(ana, lambda: "Äpfel" in ana.entries(), "Äpfel on the list")
    ben.button("Buy", root=ben.entry("Milk")).click()
    seen_within(ana, lambda: "Milk" not in ana.entries(), "Milk bought")
    ben.button("Undo", root=ben.alert("Bought Milk")).click()
    seen_within(ana, lambda: "Milk" in ana.entries(), "Milk's purchase undone")
    # No error but the browser's word that it ignores the hub's Cross-Origin-Opener-Policy header on a page
    # that is no secure context (the hub sends it on every answer; over HTTPS it holds).
    for phone in (ana, ben):
        errors = [e for e in phone.console_errors() if "Cross-Origin-Opener-Policy header has been ignored" not in e["message"]]
        assert errors == [], f"{phone.name}'s console: {errors}"

    # In German too.
    cleo = phones("cleo", language="de-DE", arguments=MAPPED)
    cleo.open(home)
    cleo.wait(lambda: "Offline arbeiten geht nur über HTTPS" in cleo.text(), 5, "the German word on HTTPS")
    if os.environ.get("SHOP_APP_SCREENSHOTS"):
        cleo.screenshot(Path(os.environ["SHOP_APP_SCREENSHOTS"]) / "phone-welcome-http-de.png")
    cleo.find("link", "So richtest du HTTPS ein").click()
    cleo.heading("Offline braucht HTTPS")
    assert "shop-hub serve --tls-cert cert.pem --tls-key key.pem" in cleo.text()
    if os.environ.get("SHOP_APP_SCREENSHOTS"):
        cleo.screenshot(Path(os.environ["SHOP_APP_SCREENSHOTS"]) / "phone-de-https-help.png")

    # Every id made on the phones is a version 4 UUID; the journal verifies and holds each command once.
    lines = journal_lines(hub, ana, tmp_path)
    each_command_once(lines)
    ids = [line["command"] for line in lines]
    assert all(len(i) == 36 and i[14] == "4" and i[19] in "89AB" for i in ids), ids


def test_over_plain_http_what_the_phone_does_without_the_hub_shows_as_waiting_and_is_sent_when_it_is_back(hub, phones, tmp_path):
    """The shop with no way to the hub (the browser still online: mobile data, no route home). No service worker
    keeps views over plain HTTP, so the page shows the list as it last got it, the purchase and the new entry as
    waiting, and no error asking to try again (which once made a family buy Eggs twice)."""
    proxy = Proxy(int(hub.url.rsplit(":", 1)[1])).start()
    home = f"http://{HOME_NAME}:{proxy.port}"
    ana = phones("ana", arguments=MAPPED)
    start_at(ana, home, "The Bergs")
    assert insecure(ana)["secure"] is False
    create_list(ana, "Weekly")
    add(ana, "Eggs", 2)
    add(ana, "Milk", 1)
    proxy.stop()
    ana.button("Buy", root=ana.entry("Eggs")).click()
    add(ana, "Mustard", 1)
    ana.wait(lambda: "Mustard" in ana.entries() and "waiting to send" in ana.entry("Mustard").text, 10, "Mustard shown, waiting")
    ana.wait(lambda: "Eggs" not in ana.entries(), 10, "Eggs off the list to buy")
    open_bought(ana)
    ana.wait(lambda: "waiting to send" in ana.entry("Eggs").text, 10, "Eggs bought, waiting")
    assert "try again" not in ana.text(), ana.text()
    proxy.start()
    ana.driver.execute_script("window.dispatchEvent(new Event('online'))")   # as the browser says when a network is back
    ana.wait(lambda: "waiting" not in ana.text(), 20, "everything sent")
    lines = journal_lines(hub, ana, tmp_path)
    each_command_once(lines)
    assert [line["type"] for line in lines if line["type"] in ("ItemPurchased", "ItemAddedToList")].count("ItemPurchased") == 1
    assert any(line["type"] == "ItemCreated" and line["data"]["name"] == "Mustard" for line in lines)
