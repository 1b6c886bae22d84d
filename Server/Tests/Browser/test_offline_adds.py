"""Nothing a family adds offline is lost (docs/APP.md, "Nothing added is lost").
Two phones offline at once, each through its own loopback proxy: both add the
new "Chocolate" to Weekly, Ben adds the known "Coffee" and "Chocolate" to Party,
which Ana deletes meanwhile. Back online, the journal holds one Chocolate, on
Weekly once with the larger quantity, Coffee added, nothing twice; Ben is told
in words that Party was deleted and puts Chocolate on another list; both phones
show the same list."""
import os
import re
import time
from pathlib import Path

from selenium.webdriver.support.ui import Select

from test_every_command import card, more, confirm, act
from test_offline import Proxy, network, waiting, controlled, journal_lines, each_command_once, DRAIN_SECONDS
from test_two_phones import start_at, create_list, invite, join, open_list, add, add_details

UUID = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")


def add_offline(phone, item, quantity):
    """Adds on the list shown without a network: the entry shows at once, marked as waiting."""
    add_details(phone)
    phone.fill("Item", item)
    phone.fill("Quantity", str(quantity))
    phone.button("Add").click()
    phone.wait(lambda: "waiting to send" in phone.entry(item).text, 5, f"{item} added, waiting")


def test_two_phones_add_offline_and_nothing_is_lost(hub, phones, tmp_path):
    port = int(hub.url.rsplit(":", 1)[1])
    ana_proxy, ben_proxy = Proxy(port).start(), Proxy(port).start()
    ana = phones("ana")
    start_at(ana, ana_proxy.url, "Bergs")
    for name in ["Snacks", "Party", "Weekly"]:
        create_list(ana, name)
        ana.find("link", "Lists").click()
        ana.heading("Lists")
    open_list(ana, "Snacks")
    add(ana, "Coffee", 1)          # known to the household before anyone goes offline
    code = invite(ana, "ben")
    ben = phones("ben")
    join(ben, ben_proxy.url, code, "Bens phone")
    for phone in (ana, ben):
        controlled(phone)
    open_list(ben, "Party")        # seen once, so that it opens offline
    ben.find("link", "Lists").click()
    open_list(ben, "Weekly")
    ana.find("link", "Lists").click()
    open_list(ana, "Weekly")

    for proxy, phone in ((ana_proxy, ana), (ben_proxy, ben)):
        proxy.stop()
        network(phone, online=False)
    add_offline(ana, "Chocolate", 2)
    add_offline(ben, "Chocolate", 3)
    add_offline(ben, "Coffee", 1)
    ben.find("link", "Lists").click()
    open_list(ben, "Party")
    add_offline(ben, "chocolate", 1)
    ana.find("link", "Lists").click()
    ana.heading("Lists")
    act(lambda: ana.button("Delete list", root=more(card(ana, "Party"))).click())
    confirm(ana)
    ana.wait(lambda: any(c["type"] == "DeleteList" for c in waiting(ana)), 5, "Party's deletion waiting")

    # What waits names items by id only: a name the phone knew is its id, a new one an item made here (once).
    made = waiting(ben)
    assert [c["type"] for c in made] == ["CreateItem", "AddItemToList", "AddItemToList", "AddItemToList"], made
    assert all(UUID.match(c["data"]["item"]) for c in made), made
    created = made[0]["data"]["item"]
    assert made[1]["data"]["item"] == created and made[3]["data"]["item"] == created, "the second Chocolate is the item made here"

    # Back online, Ana first, then Ben.
    for proxy, phone in ((ana_proxy, ana), (ben_proxy, ben)):
        proxy.start()
        network(phone, online=True)
        started = time.monotonic()
        phone.wait(lambda: waiting(phone) == [], DRAIN_SECONDS, f"{phone.name}'s outbox drained")
        print(f"offline adds: {phone.name}'s outbox settled {time.monotonic() - started:.2f} s after the network came back")

    # Party's Chocolate is for Ben to decide: said in words, with another list as the way forward.
    refusal = ben.alert("Party was deleted", timeout=10)
    assert "Party was deleted, so chocolate was not added. Restore it from “Deleted lists” or choose another list." in refusal.text.splitlines(), refusal.text
    assert not re.search(r"_|\(|hub|Hub|byte|AddItemToList|[0-9A-F]{8}-", refusal.text), refusal.text
    ben.driver.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}))")   # the offline toast read
    ben.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", refusal)
    if os.environ.get("SHOP_APP_SCREENSHOTS"):
        ben.screenshot(Path(os.environ["SHOP_APP_SCREENSHOTS"]) / "phone-refused-in-words.png")
    ben.screenshot(tmp_path / "refused-in-words.png")
    choice = ben.field("List for chocolate", root=refusal)
    assert sorted(o.text for o in choice.find_elements("tag name", "option")) == ["Snacks", "Weekly"]
    Select(choice).select_by_visible_text("Snacks")
    ben.button("Add to another list", root=refusal).click()
    ben.wait(lambda: not ben.driver.find_element("id", "refused").is_displayed(), 10, "the refusal settled")
    ben.wait(lambda: waiting(ben) == [], DRAIN_SECONDS, "the entry on Snacks sent")

    # The journal: one Chocolate, on Weekly once (Ana's 2, then Ben's larger 3) and on Snacks; Coffee on Weekly; nothing twice.
    lines = journal_lines(hub, ana, tmp_path)
    each_command_once(lines)
    items = {line["data"]["item"]: line["data"]["name"] for line in lines if line["type"] == "ItemCreated"}
    assert sorted(n.lower() for n in items.values()) == ["chocolate", "coffee"], items
    lists = {line["data"]["list"]: line["data"]["name"] for line in lines if line["type"] == "ListCreated"}
    added = [(lists[line["data"]["list"]], items[line["data"]["item"]], line["data"].get("quantity")) for line in lines
             if line["type"] == "ItemAddedToList"]
    assert sorted(added) == [("Snacks", "Chocolate", 1), ("Snacks", "Coffee", 1), ("Weekly", "Chocolate", 2), ("Weekly", "Coffee", 1)], added
    changed = [(lists[line["data"]["list"]], items[line["data"]["item"]], line["data"]["quantity"]) for line in lines
               if line["type"] == "ListEntryQuantityChanged"]
    assert changed == [("Weekly", "Chocolate", 3)], changed
    assert created not in items, "Ben's own Chocolate was never made"

    # Both phones show the same Weekly: Chocolate ×3 and Coffee.
    for phone in (ana, ben):
        phone.find("link", "Lists").click()
        open_list(phone, "Weekly")
    shown = lambda phone: sorted((name, row.text) for name, row in phone.entries().items())  # noqa: E731
    ana.wait(lambda: shown(ana) == shown(ben) and sorted(shown(ana)) and "×3" in ana.entry("Chocolate").text
             and "Coffee" in ana.entries(), 10, "the same list on both phones")
    assert sorted(ana.entries()) == ["Chocolate", "Coffee"]
    for proxy in (ana_proxy, ben_proxy):
        proxy.stop()
