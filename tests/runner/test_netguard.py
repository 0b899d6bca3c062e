import socket
import subprocess
import sys
import textwrap

import pytest

from repbook.runner import netguard
from repbook.runner.chapters import resolve
from repbook.runner.execute import execute

from minibook import HEADER

NETWORK = HEADER + textwrap.dedent("""\
    # %% tags=["parameters"]
    scale = "quick"
    seed = 0

    # %%
    import urllib.request
    urllib.request.urlopen("http://example.invalid/data.csv", timeout=5)
    """)


def run_guarded(code: str, allow: bool = False) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", **({netguard.ALLOW_ENV: "1"} if allow else {})}
    prog = "from repbook.runner.netguard import install\ninstall()\n" + textwrap.dedent(
        code
    )
    return subprocess.run(
        [sys.executable, "-c", prog],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize(
    "code, host",
    [
        ("import socket; socket.getaddrinfo('example.com', 443)", "example.com:443"),
        (
            "import socket; socket.create_connection(('10.1.2.3', 80), timeout=1)",
            "10.1.2.3:80",
        ),
        (
            "import urllib.request; urllib.request.urlopen('https://pypi.org/simple', timeout=1)",
            "pypi.org",
        ),
        (
            "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('8.8.8.8', 53))",
            "8.8.8.8:53",
        ),
    ],
)
def test_outbound_is_blocked_with_a_clear_message(code, host):
    proc = run_guarded(code)
    assert proc.returncode != 0
    assert (
        "NetworkBlockedError: network access blocked" in proc.stderr
        and host in proc.stderr
    )


def test_loopback_still_works():
    proc = run_guarded("""
        import socket
        srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
        c = socket.create_connection(("localhost", srv.getsockname()[1]), timeout=5)
        c.close(); srv.close(); print("ok")
        """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_opt_out():
    assert (
        run_guarded(
            "import socket; print(socket.getaddrinfo is socket.getaddrinfo)", allow=True
        ).returncode
        == 0
    )
    proc = run_guarded(
        "import socket; print(getattr(socket, '_repbook_guarded', False))", allow=True
    )
    assert proc.stdout.strip() == "False"


@pytest.mark.parametrize(
    "host, local",
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("127.8.0.1", True),
        ("10.0.0.1", False),
        ("example.com", False),
        (b"localhost", True),
        (None, True),
    ],
)
def test_is_local(host, local):
    assert netguard._is_local(host) is local


def test_a_chapter_that_downloads_fails_loudly(book_root):
    (book_root / "notebooks" / "03_download.py").write_text(NETWORK)
    rec = execute(
        book_root, resolve(book_root, ["03"])[0], {"scale": "quick", "seed": 0}, "quick"
    )
    assert rec.status == "failed"
    assert rec.error["ename"] in (
        "NetworkBlockedError",
        "URLError",
    )  # urllib wraps OSErrors
    assert (
        "network access blocked" in rec.error["evalue"]
        and "example.invalid" in rec.error["evalue"]
    )
    assert not getattr(
        socket, "_repbook_guarded", False
    )  # the test process itself is untouched
