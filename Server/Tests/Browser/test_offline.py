"""A phone without a network in the shop (docs/APP.md, offline; docs/SYNC.md's
laws in the browser). Phone B talks to the hub through a small loopback proxy
that the test stops and starts, and DevTools cuts its network too (which sets
navigator.onLine, but leaves the service worker's own fetches alone: hence the
proxy). B, offline, buys Bread and Eggs while A, online, buys Eggs first; B
reloads offline and still sees its list with the purchases marked as waiting;
back online it sends them within 10 s. The journal then holds Bread bought
once, both Eggs purchases (B's off the list, with the purchase id B made), no
command twice, and verifies. A hub SIGKILLed while B sends loses nothing."""
import json
import os
import random
import socket
import threading
import time
from pathlib import Path

import pytest

from conftest import verify_journal
from test_two_phones import start_household, start_at, create_list, invite, join, open_list, add, open_bought

DRAIN_SECONDS = 10


class Proxy:
    """A TCP proxy on loopback to the hub: stopped, every connection through it drops and none is taken."""

    def __init__(self, target_port):
        self.target = target_port
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.listener = None
        self.sockets = set()
        self.lock = threading.Lock()
        self.clients = set()
        self.on_push = None   # called once, in its own thread, right after a push's bytes were passed on
        self.is_push = lambda data: b'"push"' in data   # how a push's bytes are told (over TLS: not at all)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self.listener = listener
        threading.Thread(target=self.accept, args=(listener,), daemon=True).start()
        return self

    def accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.listener is not listener:
                    # Accepted while the proxy was being stopped: dropped too, or it would outlive the stop.
                    client.close()
                    upstream.close()
                    continue
                self.sockets |= {client, upstream}
                self.clients.add(client)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
                if self.on_push and source in self.clients and self.is_push(data):
                    hook, self.on_push = self.on_push, None
                    threading.Thread(target=hook, daemon=True).start()
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def stop(self):
        if self.listener:
            # shutdown wakes the thread blocked in accept (close alone leaves it accepting, on Linux).
            try:
                self.listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.listener.close()
        with self.lock:
            self.listener = None
            for s in self.sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self.sockets.clear()


def network(phone, online):
    phone.set_offline(not online)


OUTBOX = """
const done = arguments[arguments.length - 1];
const open = indexedDB.open('shopevents');
open.onsuccess = () => {
  const request = open.result.transaction('outbox').objectStore('outbox').getAll();
  request.onsuccess = () => done(request.result.map((entry) => entry.command));
  request.onerror = () => done(null);
};
open.onerror = () => done(null);
"""


def waiting(phone):
    return phone.driver.execute_async_script(OUTBOX)


def controlled(phone):
    """Waits until the service worker controls the page (it has kept the app)."""
    phone.wait(lambda: phone.driver.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)"),
               15, "the service worker in control")


def journal_lines(hub, ana, tmp_path):
    session = ana.session()
    path = tmp_path / "household.ndjson"
    path.write_bytes(hub.get(f"/v1/households/{session['household']}/journal", session["token"]))
    verify_journal(path)
    return [json.loads(line) for line in path.read_text().splitlines()]


def each_command_once(lines):
    runs = []
    for line in lines:
        if not runs or runs[-1] != line["command"]:
            runs.append(line["command"])
    assert len(runs) == len(set(runs)), "a command's events appear twice"


@pytest.mark.both_engines
def test_offline_phone_keeps_its_purchases_and_catches_up(hub, phones, tmp_path):
    offline_phone_flow(hub, phones, tmp_path)


def offline_phone_flow(hub, phones, tmp_path, address=lambda port: f"http://127.0.0.1:{port}", encrypted=False, **phone):
    """The flow above; `address`: the app's address at a port (the hub's, the proxy's); `phone`: how each
    phone is made (test_https.py: the app at https://shop.test, its root trusted). `encrypted`: the proxy
    cannot see a push in TLS's bytes, so the hub is killed 0–300 ms after the phone's first bytes reach it
    once the network is back (before, during or after its push) rather than right after the push's."""
    hub_port = int(hub.url.rsplit(":", 1)[1])
    ana = phones("ana", **phone)
    start_household(ana, hub, url=address(hub_port))
    ana.fill("List name", "Weekly")
    ana.button("Create list").click()
    ana.heading("Weekly")
    for item in ["Bread", "Eggs", "Milk"]:
        add(ana, item, 1)
    code = invite(ana, "ben")

    # Ben's phone, through the proxy: joined, the list seen once while the app is kept.
    proxy = Proxy(hub_port).start()
    ben = phones("ben", **phone)
    join(ben, address(proxy.port), code, "Ben's phone")
    controlled(ben)
    open_list(ben, "Weekly")
    ben.entry("Eggs", timeout=10)

    # In the shop without a network: Bread and Eggs bought, shown at once as bought and waiting.
    proxy.stop()
    network(ben, online=False)
    for item in ["Bread", "Eggs"]:
        ben.button("Buy", root=ben.entry(item)).click()
        open_bought(ben)   # bought, in the list's "Bought" part
        ben.wait(lambda: "waiting to send" in ben.entry(item).text, 5, f"{item} bought, waiting")
    ben.wait(lambda: "2 changes waiting" in ben.text(), 5, "the count of changes waiting")
    made = waiting(ben)
    assert [c["type"] for c in made] == ["PurchaseItem", "PurchaseItem"]
    bens = {c["data"]["item"]: c["data"]["purchase"] for c in made}
    assert all(c["data"]["purchasedAt"] and c["data"]["list"] for c in made), made

    # Meanwhile Ana, online, buys the Eggs first.
    ana.find("link", "Lists").click()
    open_list(ana, "Weekly")
    ana.button("Buy", root=ana.entry("Eggs")).click()
    ana.wait(lambda: "Eggs" not in ana.entries(), 5, "Eggs bought on Ana's phone")

    # Ben reloads, still offline: the app opens, the list shows, the purchases still marked.
    ben.reload()
    ben.heading("Weekly", timeout=15)
    assert ben.driver.execute_script("return !!navigator.serviceWorker.controller"), "the service worker answers the reload"
    open_bought(ben)
    for item in ["Bread", "Eggs"]:
        ben.wait(lambda: "waiting to send" in ben.entry(item).text, 10, f"{item} still waiting after the reload")
    ben.wait(lambda: "2 changes waiting" in ben.text(), 5, "the count after the reload")
    if os.environ.get("SHOP_APP_SCREENSHOTS"):
        ben.screenshot(Path(os.environ["SHOP_APP_SCREENSHOTS"]) / "phone-offline-waiting.png")

    # The phone restarted, still offline: the browser opens the app again, from its own copy.
    ben.quit()
    ben = phones("ben", **phone)
    network(ben, online=False)
    ben.open(address(proxy.port))
    ben.heading("Lists", timeout=15)
    open_list(ben, "Weekly")
    open_bought(ben)
    for item in ["Bread", "Eggs"]:
        ben.wait(lambda: "waiting to send" in ben.entry(item).text, 10, f"{item} still waiting after a restart")

    # The network back: the outbox drains within 10 s.
    proxy.start()
    network(ben, online=True)
    started = time.monotonic()
    ben.wait(lambda: waiting(ben) == [] and "waiting" not in ben.driver.find_element("id", "live").text, DRAIN_SECONDS + 2, "the outbox drained")
    drained = time.monotonic() - started
    print(f"offline: Ben's outbox drained {drained:.2f} s after the network came back")
    assert drained <= DRAIN_SECONDS
    assert not ben.driver.find_element("id", "refused").is_displayed(), "no refusal kept"

    lines = journal_lines(hub, ana, tmp_path)
    each_command_once(lines)
    purchases = [line["data"] for line in lines if line["type"] == "ItemPurchased"]
    names = {line["data"]["item"]: line["data"]["name"] for line in lines if line["type"] == "ItemCreated"}
    bread = [p for p in purchases if names[p["item"]] == "Bread"]
    eggs = [p for p in purchases if names[p["item"]] == "Eggs"]
    assert [p["purchase"] for p in bread] == [bens[bread[0]["item"]]], "Bread bought once, Ben's purchase"
    assert len(eggs) == 2, eggs
    assert eggs[0].get("list") is not None, "Ana's purchase of Eggs, from the list"
    assert eggs[1]["purchase"] == bens[eggs[1]["item"]] and eggs[1].get("list") is None, "Ben's, the same purchase, off the list"

    # Offline again: Milk bought; the hub is SIGKILLed while the phone sends it, and restarted.
    proxy.stop()
    network(ben, online=False)
    # Tapped again if the row was redrawn under the finger (the list's views arriving after the drain).
    ben.wait(lambda: ben.button("Buy", root=ben.entry("Milk")).click() or True, 10, "Milk's Buy tapped")
    ben.wait(lambda: "1 change waiting" in ben.text(), 5, "Milk waiting")
    milk = waiting(ben)[0]["data"]["purchase"]
    killed = threading.Event()

    def kill_while_pushing():
        time.sleep(random.uniform(0.0, 0.3 if encrypted else 0.02))   # before, during or just after the hub's commit
        hub.kill()
        killed.set()

    proxy.on_push = kill_while_pushing
    if encrypted:
        proxy.is_push = lambda data: True
    proxy.start()
    network(ben, online=True)
    assert killed.wait(15), "the phone pushed"
    hub.restart()
    ben.wait(lambda: waiting(ben) == [], DRAIN_SECONDS + 5, "the outbox drained after the hub's restart")
    lines = journal_lines(hub, ana, tmp_path)
    each_command_once(lines)
    assert [line["data"]["purchase"] for line in lines if line["type"] == "ItemPurchased"].count(milk) == 1, "Milk bought once"
    proxy.stop()
    return ana, ben


@pytest.mark.both_engines
def test_two_phones_offline_at_once_converge(hub, phones, tmp_path):
    """Both phones offline, conflicting: both buy Milk; one takes Bread off the list while the other changes
    its quantity. Back online, both show the same list, every purchase is in the journal once (the later
    Milk off the list), and the refused quantity change is shown with its words until dismissed."""
    port = int(hub.url.rsplit(":", 1)[1])
    ana_proxy, ben_proxy = Proxy(port).start(), Proxy(port).start()
    ana = phones("ana")
    start_at(ana, ana_proxy.url, "Conflicts")
    create_list(ana, "Weekly")
    for item in ["Milk", "Bread"]:
        add(ana, item, 1)
    code = invite(ana, "ben")
    ben = phones("ben")
    join(ben, ben_proxy.url, code, "Bens phone")
    for phone in (ana, ben):
        controlled(phone)
    ana.find("link", "Lists").click()
    open_list(ana, "Weekly")
    open_list(ben, "Weekly")
    ben.entry("Bread", timeout=10)

    for proxy, phone in ((ana_proxy, ana), (ben_proxy, ben)):
        proxy.stop()
        network(phone, online=False)
    for phone in (ana, ben):
        phone.button("Buy", root=phone.entry("Milk")).click()
        open_bought(phone)
        phone.wait(lambda: "waiting to send" in phone.entry("Milk").text, 5, "Milk bought, waiting")
    row = ana.entry("Bread")
    row.find_element("xpath", ".//summary").click()
    ana.button("Remove", root=ana.entry("Bread")).click()
    ana.wait(lambda: "Bread" not in ana.entries(), 5, "Bread taken off, waiting")
    row = ben.entry("Bread")
    row.find_element("xpath", ".//summary").click()
    ben.fill("Quantity: Bread", "3", root=ben.entry("Bread"))
    ben.button("Change", root=ben.entry("Bread").find_element("xpath", ".//form[@data-form='changeQuantity']")).click()
    ben.wait(lambda: "×3" in ben.entry("Bread").text, 5, "Bread ×3, waiting")
    purchases = {phone.name: [c["data"]["purchase"] for c in waiting(phone) if c["type"] == "PurchaseItem"] for phone in (ana, ben)}

    # Back online, Ana first, then Ben.
    for proxy, phone in ((ana_proxy, ana), (ben_proxy, ben)):
        proxy.start()
        network(phone, online=True)
        phone.wait(lambda: waiting(phone) == [], DRAIN_SECONDS, f"{phone.name}'s outbox drained")
    # Ben's quantity change was refused (Bread is no longer on the list): kept, in words, until dismissed.
    refusal = ben.alert("no longer on", timeout=10)
    assert "Bread is no longer on Weekly, so the quantity of Bread was not changed. Add it again if you still need it." in refusal.text.splitlines(), refusal.text
    ben.button("Dismiss", root=refusal).click()
    ben.wait(lambda: not ben.driver.find_element("id", "refused").is_displayed(), 5, "the refusal dismissed")

    # Both phones show the same list.
    shown = lambda phone: sorted((name, row.text) for name, row in phone.entries().items())  # noqa: E731
    ana.wait(lambda: shown(ana) == shown(ben) and "Bread" not in ana.entries(), 10, "the same list on both phones")
    lines = journal_lines(hub, ana, tmp_path)
    each_command_once(lines)
    bought = [line["data"] for line in lines if line["type"] == "ItemPurchased"]
    assert sorted(p["purchase"] for p in bought) == sorted(purchases["ana"] + purchases["ben"]), "every purchase once"
    assert sorted(p.get("list") is None for p in bought) == [False, True], "the later Milk off the list"
    for proxy in (ana_proxy, ben_proxy):
        proxy.stop()
