"""HTTPS at home (docs/APP.md, "At home"), end to end: the hub's own --tls-cert/--tls-key with a leaf
certificate for shop.test signed by a root made here (openssl, in a temporary folder), chromium mapping
shop.test to loopback and trusting that root through its own NSS database (certutil, Debian's
libnss3-tools; a $HOME of its own, never --ignore-certificate-errors). The app at https://shop.test:PORT is a
secure context with its service worker, and the offline test (test_offline.py's flow, through its
loopback proxy, which passes TLS through as it is) passes there."""
import shutil
import ssl
import subprocess

import pytest

from conftest import Hub, STORAGES, postgres_cluster
from test_offline import offline_phone_flow

NAME = "shop.test"


def run(*command, cwd):
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def certificates(tmp_path):
    """A root CA and a leaf for shop.test it signed (the hub's), and a $HOME whose NSS database trusts the root."""
    if not shutil.which("openssl") or not shutil.which("certutil"):
        pytest.skip("no openssl or no certutil (Debian's openssl and libnss3-tools; .ci/run installs them)")
    folder = tmp_path / "tls"
    folder.mkdir()
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("openssl", "req", "-x509", *ec, "-keyout", "root.key", "-out", "root.pem", "-days", "2", "-subj", "/CN=ShopEvents test root",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder)
    run("openssl", "req", *ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", f"/CN={NAME}", cwd=folder)
    (folder / "leaf.ext").write_text(f"subjectAltName=DNS:{NAME}\nbasicConstraints=critical,CA:FALSE\n"
                                     "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
    run("openssl", "x509", "-req", "-in", "leaf.csr", "-CA", "root.pem", "-CAkey", "root.key", "-CAcreateserial",
        "-out", "leaf.pem", "-days", "2", "-extfile", "leaf.ext", cwd=folder)
    home = tmp_path / "home"
    nss = home / ".pki" / "nssdb"
    nss.mkdir(parents=True)
    run("certutil", "-d", f"sql:{nss}", "-N", "--empty-password", cwd=folder)
    run("certutil", "-d", f"sql:{nss}", "-A", "-t", "C,,", "-n", "ShopEvents test root", "-i", "root.pem", cwd=folder)
    return folder, home


@pytest.fixture(params=STORAGES)
def tls_hub(request, tmp_path, certificates):
    if request.param == "postgres" and postgres_cluster() is None:
        pytest.skip("no PostgreSQL: run under pg_virtualenv (it sets PGHOST, PGPORT, PGUSER, PGPASSWORD), as .ci/run does")
    folder, _ = certificates
    trusted = ssl.create_default_context(cafile=str(folder / "root.pem"))
    trusted.check_hostname = False   # the test's own reads go to 127.0.0.1; the certificate names shop.test
    hub = Hub(request.param, tmp_path, ["--tls-cert", str(folder / "leaf.pem"), "--tls-key", str(folder / "leaf.key")], trusted).start()
    yield hub
    hub.stop()


def test_the_app_over_https_at_home_works_offline(tls_hub, phones, tmp_path, certificates):
    _, home = certificates
    assert tls_hub.url.startswith("https://"), tls_hub.url
    mapped = {"arguments": [f"--host-resolver-rules=MAP {NAME} 127.0.0.1"], "home": home}
    ana, ben = offline_phone_flow(tls_hub, phones, tmp_path, address=lambda port: f"https://{NAME}:{port}",
                                  encrypted=True, **mapped)
    for phone in (ana, ben):
        state = phone.driver.execute_script("""return {secure: window.isSecureContext, origin: location.origin,
            worker: !!navigator.serviceWorker.controller, notice: document.body.innerText.includes('needs HTTPS')}""")
        assert state["secure"] and state["origin"].startswith(f"https://{NAME}:") and state["worker"] and not state["notice"], state
    # The help page, opened over HTTPS, says the app already works offline (not that it is open over plain HTTP).
    ben.open(f"{ben.driver.execute_script('return location.origin')}/#/https")
    ben.wait(lambda: "over HTTPS, so it opens and works without a network too" in ben.text(), 10, "the help page's word over HTTPS")
    assert "over plain HTTP." not in ben.text()
