"""No network at run time: a guard that every chapter kernel loads before its first cell.

The runner (and the test suite) point IPYTHONDIR at a folder whose startup script calls `install()`,
so a chapter that tries to resolve or reach any host other than this machine's loopback fails at once
with `NetworkBlockedError` naming the host. The kernel's own ZeroMQ sockets are not Python sockets
and are unaffected. Set `layout.ALLOW_NETWORK_ENV` to 1 to run without the guard (e.g. a chapter's optional
LLM endpoint).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import tempfile
from pathlib import Path

from ..layout import ALLOW_NETWORK_ENV as ALLOW_ENV

LOCAL_NAMES = {
    "localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "ip6-loopback",
    "",
}


class NetworkBlockedError(ConnectionError):
    """A chapter tried to reach the network while the book runs offline."""


def _is_local(host) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    host = str(host).strip("[]").lower()
    if host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _blocked(host, port=None):
    where = f"{host}:{port}" if port is not None else str(host)
    return NetworkBlockedError(
        f"network access blocked: this chapter tried to reach {where}. Chapters run offline: data "
        f"must come from the repo, a generator or an installed package (set {ALLOW_ENV}=1 to allow)"
    )


def install() -> bool:
    """Patch `socket` so that name lookups and connections to non-loopback hosts raise.

    Returns False (and patches nothing) when `ALLOW_ENV` is 1.
    """
    if os.environ.get(ALLOW_ENV) == "1":
        return False
    if getattr(socket, "_repbook_guarded", False):
        return True
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_sendto = socket.socket.sendto

    def getaddrinfo(host, port, *args, **kwargs):
        if not _is_local(host):
            raise _blocked(host, port)
        return real_getaddrinfo(host, port, *args, **kwargs)

    def check(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(
            address[0]
        ):
            raise _blocked(address[0], address[1])

    def connect(self, address):
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self, address):
        check(self, address)
        return real_connect_ex(self, address)

    def sendto(self, data, *args):
        check(self, args[-1])
        return real_sendto(self, data, *args)

    socket.getaddrinfo = getaddrinfo
    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.socket.sendto = sendto
    socket._repbook_guarded = True
    return True


STARTUP = "from repbook.runner.netguard import install\ninstall()\n"
# The kernel talks to papermill over loopback TCP; ipykernel >= 7 warns about that on every start,
# which buries the runner's progress lines. Its other start-up messages are no more use to a reader.
KERNEL_CONFIG = "c.IPKernelApp.log_level = 'ERROR'\n"


def ipython_dir() -> str:
    """An IPYTHONDIR whose default profile installs the guard at kernel start (made once per process)."""
    global _IPYTHON_DIR
    if _IPYTHON_DIR is None:
        root = Path(tempfile.mkdtemp(prefix="repbook-ipython-"))
        startup = root / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-repbook-network-guard.py").write_text(STARTUP)
        (root / "profile_default" / "ipython_kernel_config.py").write_text(
            KERNEL_CONFIG
        )
        _IPYTHON_DIR = str(root)
    return _IPYTHON_DIR


_IPYTHON_DIR: str | None = None
