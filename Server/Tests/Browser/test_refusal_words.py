"""Refusals in words (docs/APP.md, "Refusals in words"): a change the other phone
made first refuses this phone's, and the person reads what happened to which
thing, in the app's language, with a way forward; never a code, a command's
type or the word hub. A join with a code that does not work, in German too."""
import re

from test_two_phones import start_at, invite, join, create_list

TECHNICAL = re.compile(r"_|\(\w+\)|\b[Hh]ub\b|byte|[A-Z][a-z]+[A-Z]\w+|[0-9a-f]{8}-")


def alert_saying(phone, text, timeout=10):
    """The visible alert (toast) whose text is `text` exactly, its buttons aside."""
    return phone.wait(lambda: next((a for a in phone.driver.find_elements("css selector", "[role=alert]")
                                    if a.is_displayed() and text in a.text.splitlines()), None), timeout, f"the alert {text!r}")


def test_a_change_refused_online_is_said_in_words_on_each_phone(hub, phones):
    ana, ben = phones("ana"), phones("ben", language="de-DE")
    start_at(ana, hub.url, "The Bergs")
    create_list(ana, "Weekly")
    code = invite(ana, "ben")
    join(ben, hub.url, code, "Bens Telefon", labels=("Einladungscode", "Gerätename", "Beitreten"), lists="Listen")
    ana.find("link", "Lists").click()
    ana.heading("Lists")

    # Both name a new list "Camping"; Ana's comes first, and Ben, who typed it meanwhile, is told in German.
    ben.fill("Name der Liste", "Camping")
    create_list(ana, "Camping")
    ben.wait(lambda: ben.all("link", "Camping", exact=False), 10, "Camping on Ben's Lists screen")
    ben.button("Liste anlegen").click()
    said = alert_saying(ben, "Ein anderes heißt schon Camping – Camping wurde nicht angelegt. Wähle einen anderen Namen.")
    assert not TECHNICAL.search(said.text), said.text

    # Ana adds what Ben added a moment before: said in English, naming the thing.
    ben.find("link", "Weekly", exact=False).click()
    ben.heading("Weekly")
    ben.fill("Artikel", "Coffee")
    ben.button("Hinzufügen").click()
    ben.entry("Coffee", timeout=10)
    ana.find("link", "Lists").click()
    ana.find("link", "Weekly", exact=False, timeout=10).click()
    ana.heading("Weekly")
    ana.entry("Coffee", timeout=10)
    ana.fill("Item", "coffee")
    ana.button("Add").click()
    said = alert_saying(ana, "Coffee was not added: That is on the list already. Change its quantity there instead.")
    assert not TECHNICAL.search(said.text), said.text

    # A code that does not work (used already), on a third phone in German: in words, with whom to ask.
    cleo = phones("cleo", language="de-DE")
    cleo.open(hub.url)
    form = cleo.form("Einem Haushalt beitreten")
    cleo.fill("Einladungscode", code, root=form)
    cleo.fill("Gerätename", "Cleos Telefon", root=form)
    cleo.button("Beitreten", root=form).click()
    said = alert_saying(cleo, "Der Einladungscode ist unbekannt, abgelaufen, zurückgezogen oder schon benutzt. "
                              "Bitte einen Eigentümer um einen neuen.")
    assert not TECHNICAL.search(said.text), said.text
