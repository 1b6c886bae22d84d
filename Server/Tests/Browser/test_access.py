"""Who may reach the household, in the web app: an owner sees the invites not
used yet (for whom, made by which device, until when) and cancels one with its
"Cancel invite" (English and German); the cancelled code is refused at join;
a member an owner removes is told so on their own phone, in its language, at once."""
import re
import time

from selenium.webdriver.common.by import By

from test_two_phones import join, start_household

REMOVED = {
    "en": "You were removed from this household, so this phone can no longer see it.",
    "de": "Du wurdest aus diesem Haushalt entfernt, daher kann dieses Telefon ihn nicht mehr sehen.",
}


def invite(phone, actor):
    """An owner's invite for `actor` on the household screen: its code, as shown for that actor."""
    phone.find("link", "Household").click()
    phone.fill("Name of the person invited", actor)
    phone.button("Invite").click()
    return phone.wait(lambda: re.search(rf"Invite code for {actor}: (\S+)", phone.text()), 10, f"the invite code for {actor}").group(1)


def card(phone, words, timeout=10):
    """The card on the screen whose text contains `words`."""
    return phone.wait(lambda: next((li for li in phone.driver.find_elements(By.XPATH, "//main//li")
                                    if li.is_displayed() and words in li.text), None), timeout, f"a card with {words!r}")


def waiting(phone):
    """The invites listed as not used yet: the text of each."""
    return [li.text for li in phone.driver.find_elements(By.XPATH, "//main//li") if li.is_displayed() and li.text.startswith("For ")]


def remove(phone, member):
    """An owner removes `member` on the household screen (its "More", "Remove member", confirmed)."""
    row = card(phone, member)
    row.find_element(By.XPATH, ".//summary").click()
    phone.button("Remove member", root=row).click()
    phone.wait(lambda: phone.driver.switch_to.alert, 5, "the confirmation").accept()


def test_invites_listed_and_cancelled_and_a_removed_member_told(hub, phones):
    ana = phones("ana")
    start_household(ana, hub)
    ben_code = invite(ana, "ben")
    cleo_code = invite(ana, "cleo")
    dan_code = invite(ana, "dan")

    # The invites not used yet: whom each is for and which device made it, a "Cancel invite" each.
    ana.wait(lambda: len(waiting(ana)) == 3, 10, "three invites waiting")
    for actor in ["ben", "cleo", "dan"]:
        assert any(text.startswith(f"For {actor}, made by Ana's phone, valid until ") for text in waiting(ana)), waiting(ana)
    assert len(ana.all("button", "Cancel invite")) == 3
    assert not any(code in text for text in waiting(ana) for code in [ben_code, cleo_code, dan_code]), "a waiting invite shows no code"

    # In German, the same button says so in German.
    ana.field("Language").send_keys("Deutsch")
    ana.wait(lambda: len(ana.all("button", "Einladung zurückziehen")) == 3, 10, "the German “Cancel invite”")
    ana.field("Sprache").send_keys("English")
    ana.wait(lambda: len(ana.all("button", "Cancel invite")) == 3, 10, "the English “Cancel invite” again")

    # Cleo's is cancelled: gone from the list, and its code is refused at join like an unknown one.
    ana.button("Cancel invite", root=card(ana, "For cleo")).click()
    ana.wait(lambda: len(waiting(ana)) == 2 and not any("For cleo" in text for text in waiting(ana)), 10, "cleo's invite gone")
    cleo = phones("cleo")
    cleo.open(hub.url)
    form = cleo.form("Join a household")
    cleo.fill("Invite code", cleo_code, root=form)
    cleo.fill("Device name", "Cleo's phone", root=form)
    cleo.button("Join", root=form).click()
    cleo.alert("That invite code is unknown, expired, cancelled or used already.")

    # Ben (German) and dan (English) join; each invite is then no longer waiting.
    ben = phones("ben", language="de-DE")
    join(ben, hub.url, ben_code, "Bens Telefon", labels=("Einladungscode", "Gerätename", "Beitreten"), lists="Listen")
    dan = phones("dan")
    join(dan, hub.url, dan_code, "Dan's phone")
    ana.find("link", "Lists").click()
    ana.find("link", "Household").click()
    ana.wait(lambda: ana.all("button", "Revoke"), 10, "the joined phones")
    assert waiting(ana) == [] and "No invite is waiting." in ana.text(), waiting(ana)

    # An owner removes ben, then dan: each phone says so at once, in its own language, on its start screen.
    for phone, member, language in [(ben, "ben", "de"), (dan, "dan", "en")]:
        remove(ana, member)
        started = time.monotonic()
        phone.wait(lambda: REMOVED[language] in phone.text(), 10, "that its member was removed")
        print(f"removed: {phone.name} told after {time.monotonic() - started:.3f} s")
        assert phone.session() is None, "the phone forgot its token"
    assert ana.session() is not None and ana.all("button", "Cancel invite") == []
