"""A phone's session offline (docs/APP.md, "Signing out" and "Offline"): the
views the service worker keeps are given only to the app's own requests for
that session, and go at a sign-out and on a refused token; signing out without
a network says so, and the token is revoked when the app next opens with one.
Ben's phone talks to the hub through a loopback proxy the test stops and starts."""
import urllib.error
import urllib.request

from test_offline import Proxy, network, waiting, controlled
from test_two_phones import start_at, create_list, invite, join, open_list

FETCH = """
const [path, token, done] = arguments;
const headers = token ? { Authorization: `Bearer ${token}` } : {};
fetch(path, { headers }).then((r) => r.text().then((body) => done({ status: r.status, body })))
  .catch((error) => done({ error: String(error) }));
"""

KEPT = """
const done = arguments[arguments.length - 1];
caches.keys().then((keys) => done(keys.filter((k) => k.startsWith('views')))).catch((error) => done(String(error)));
"""

KEPT_ADDRESSES = """
const done = arguments[arguments.length - 1];
(async () => {
  const kept = {};
  for (const key of (await caches.keys()).filter((k) => k.startsWith('views'))) kept[key] = (await (await caches.open(key)).keys()).map((r) => r.url);
  return kept;
})().then(done, (error) => done(String(error)));
"""


def kept_views(phone):
    return phone.driver.execute_async_script(KEPT)


def ask(phone, path, token=None):
    return phone.driver.execute_async_script(FETCH, path, token)


def status(hub, session):
    """What the hub answers the token now: 200 while it is valid, 401 once revoked."""
    request = urllib.request.Request(f"{hub.url}/v1/households/{session['household']}/views/lists",
                                     headers={"Authorization": f"Bearer {session['token']}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def household_with_ben(hub, phones):
    """Ana's household on the hub, with a list; Ben joined through a proxy, his app kept and the list seen."""
    ana = phones("ana")
    start_at(ana, hub.url, "Bergs")
    create_list(ana, "Weekly")
    code = invite(ana, "ben")
    proxy = Proxy(int(hub.url.rsplit(":", 1)[1])).start()
    ben = phones("ben")
    join(ben, proxy.url, code, "Bens phone")
    controlled(ben)
    open_list(ben, "Weekly")
    ben.find("link", "Lists").click()
    ben.heading("Lists")
    ben.wait(lambda: kept_views(ben), 10, "views kept")
    return ana, ben, proxy


def test_kept_views_are_only_the_apps_and_go_on_a_refused_token(hub, phones):
    ana, ben, proxy = household_with_ben(hub, phones)
    session = ben.session()
    path = f"/v1/households/{session['household']}/views/lists"

    # The hub unreachable: a read without the app's token, or with another, gets nothing kept; the app's own does.
    proxy.stop()
    for token in (None, "not-the-apps-token"):
        answer = ask(ben, path, token)
        assert "error" in answer and "status" not in answer, answer
    answer = ask(ben, path, session["token"])
    assert answer["status"] == 200 and '"Weekly"' in answer["body"], answer
    assert len(kept_views(ben)) == 1 and session["household"] in kept_views(ben)[0], kept_views(ben)

    # Back: Ana revokes Ben's phone; its next request is refused (401) and what it kept is gone.
    proxy.start()
    request = urllib.request.Request(f"{hub.url}/v1/households/{session['household']}/devices/{urllib.request.quote(session['device'])}",
                                     method="DELETE", headers={"Authorization": f"Bearer {ana.session()['token']}"})
    urllib.request.urlopen(request, timeout=10).close()
    ben.wait(lambda: "no longer part of the household" in ben.text(), 40, "the revoked notice")
    assert kept_views(ben) == []
    answer = ask(ben, path, session["token"])
    assert answer.get("status") == 401, answer
    assert kept_views(ben) == [], "a refused token's views are not kept again"
    proxy.stop()


def test_signing_out_offline_says_so_and_revokes_when_back(hub, phones):
    ana, ben, proxy = household_with_ben(hub, phones)
    session = ben.session()

    proxy.stop()
    network(ben, online=False)
    ben.find("link", "Household").click()
    ben.button("Sign out on this device").click()
    question = ben.wait(lambda: ben.driver.switch_to.alert, 10, "the question")
    assert question.text == ("Sign out on this device? It cannot reach the household now: the household is forgotten here at once, "
                             "and its access ends the next time this app opens with a network."), question.text
    question.accept()
    ben.wait(lambda: "Signed out on this device. It could not reach the household: its access ends the next time this app opens "
             "with a network." in ben.text(), 10, "the truth on the start screen")
    ben.form("Join a household")
    assert ben.session() is None and waiting(ben) == []
    assert ben.driver.execute_async_script(KEPT_ADDRESSES) == {}
    assert status(hub, session) == 200, "still valid while the phone could not say otherwise (and the screen said so)"

    # The app opens again with a network: the token is revoked at once.
    proxy.start()
    network(ben, online=True)
    ben.driver.refresh()
    ben.form("Join a household")
    ben.wait(lambda: status(hub, session) == 401, 10, "the token revoked")
    ben.wait(lambda: ben.driver.execute_script("return localStorage.getItem('shopevents.revoke')") == "[]", 5, "nothing left to revoke")
    proxy.stop()
