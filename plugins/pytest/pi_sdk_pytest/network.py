"""A network guard for replayed tests: traffic that would leave the machine fails loudly.

While a cassette is replayed, a request that is not in the cassette must never reach a real
server (it would need a key, cost money, and make the test depend on the network). vcrpy already
answers every request made through ``httpx2``; this guard covers what goes around it, at the
level of Python's :mod:`socket` module:

* **connections**: ``connect`` / ``connect_ex`` of a stream (TCP) socket to any IP address,
  loopback included (an unrecorded request to a local stand-in server is a miss too);
* **datagrams**: ``connect``, ``sendto`` and ``sendmsg`` of a datagram (UDP) socket to an address
  that is not loopback;
* **name lookups**: ``getaddrinfo``, ``gethostbyname`` and ``gethostbyname_ex`` of a host name
  other than ``localhost`` / ``*.localhost`` (a DNS query leaves the machine). IP literals need
  no lookup and pass; the connection to them is checked as above.

Hosts in ``allowed_hosts`` pass every check, and the addresses an allowed name resolves to
become allowed too. Unix sockets and ``socketpair`` (asyncio's self-pipe) are untouched. Code
that calls the C library directly (an extension module's own resolver or sockets) is not seen.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Generator, Iterable
from contextlib import contextmanager
from typing import Any, cast

__all__ = ["NetworkBlockedError", "block_network", "is_loopback"]

_IP_FAMILIES = (socket.AF_INET, socket.AF_INET6)
_MISSING = object()


class NetworkBlockedError(RuntimeError):
    """A test tried to reach the network while its cassette was replayed.

    Deliberately not an ``OSError``: HTTP clients treat those as retryable connection errors and
    would retry, hiding the cause.
    """


def is_loopback(host: str) -> bool:
    """True for a loopback IP literal (``127.0.0.0/8``, ``::1``, IPv4-mapped) or ``localhost``.

    ``localhost`` and ``*.localhost`` resolve to loopback without a DNS query (RFC 6761 §6.3).
    """
    name = host.strip("[]").split("%", 1)[0].lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def _split(address: Any) -> tuple[str, str]:
    """``(host, "host:port")`` of a socket address (tuple, or a bare host)."""
    parts = cast(tuple[Any, ...], address) if isinstance(address, tuple) else (address,)
    host = str(parts[0]) if parts else ""
    return host, (f"{host}:{parts[1]}" if len(parts) > 1 else host)


@contextmanager
def block_network(
    allowed_hosts: Iterable[str] = (),
    on_block: Callable[[str], None] | None = None,
) -> Generator[None]:
    """Make outgoing network access raise :class:`NetworkBlockedError` (rules: module doc).

    Args:
        allowed_hosts: Host names or IP addresses (``"127.0.0.1"``, ``"localhost"``) that stay
            reachable; an allowed name's resolved addresses are allowed too.
        on_block: Called with a description of every blocked attempt (``"host:port"`` for a
            connection, ``"UDP datagram to host:port"``, ``"DNS lookup of name"``), so a caller
            can fail the test even when the library swallowed the exception.

    Not thread-safe against other code patching :mod:`socket` at the same time; the originals
    are restored on exit.
    """
    allowed = {h.strip("[]").lower() for h in allowed_hosts}
    real = socket.socket
    real_connect, real_connect_ex = real.connect, real.connect_ex
    real_sendto, real_sendmsg = real.sendto, real.sendmsg
    real_getaddrinfo = socket.getaddrinfo
    real_gethostbyname, real_gethostbyname_ex = socket.gethostbyname, socket.gethostbyname_ex

    def refuse(what: str) -> None:
        if on_block is not None:
            on_block(what)
        raise NetworkBlockedError(
            f"network access blocked while replaying a cassette: {what}. Record the test with "
            "--pi-record (real API keys), or allow the host with "
            "@pytest.mark.pi_vcr(allowed_hosts=[...])."
        )

    def check_address(sock: socket.socket, address: Any) -> None:
        if sock.family not in _IP_FAMILIES:
            return
        host, where = _split(address)
        if host.lower() in allowed:
            return
        if sock.type == socket.SOCK_DGRAM:
            if not is_loopback(host):
                refuse(f"UDP datagram to {where}")
            return
        refuse(where)

    def check_name(host: Any) -> None:
        if host is None:
            return
        name = host.decode("idna") if isinstance(host, bytes) else str(host)
        if not name or name.lower() in allowed or is_loopback(name) or _is_ip_literal(name):
            return
        refuse(f"DNS lookup of {name}")

    def allow_resolved(host: Any, addresses: Iterable[str]) -> None:
        if host is not None and str(host).lower() in allowed:
            allowed.update(a.lower() for a in addresses)

    def connect(self: socket.socket, address: Any) -> None:
        check_address(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check_address(self, address)
        return real_connect_ex(self, address)

    def sendto(self: socket.socket, data: Any, *args: Any) -> int:
        if args:
            check_address(self, args[-1])
        return real_sendto(self, data, *args)

    def sendmsg(self: socket.socket, *args: Any) -> int:
        if len(args) >= 4 and args[3] is not None:
            check_address(self, args[3])
        return real_sendmsg(self, *args)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        check_name(host)
        found = real_getaddrinfo(host, *args, **kwargs)
        allow_resolved(host, (str(entry[4][0]) for entry in found))
        return found

    def gethostbyname(host: str) -> str:
        check_name(host)
        found = real_gethostbyname(host)
        allow_resolved(host, [found])
        return found

    def gethostbyname_ex(host: str) -> tuple[str, list[str], list[str]]:
        check_name(host)
        found = real_gethostbyname_ex(host)
        allow_resolved(host, found[2])
        return found

    patches: list[tuple[Any, str, Any]] = [
        (real, "connect", connect),
        (real, "connect_ex", connect_ex),
        (real, "sendto", sendto),
        (real, "sendmsg", sendmsg),
        (socket, "getaddrinfo", getaddrinfo),
        (socket, "gethostbyname", gethostbyname),
        (socket, "gethostbyname_ex", gethostbyname_ex),
    ]
    # socket.socket inherits connect/sendto from _socket.socket: restore by deleting the
    # override, so the class is left exactly as it was.
    saved: list[tuple[Any, str, object]] = [
        (owner, name, cast(dict[str, object], vars(owner)).get(name, _MISSING))
        for owner, name, _ in patches
    ]
    for owner, name, patched in patches:
        setattr(owner, name, patched)
    try:
        yield
    finally:
        for owner, name, original in saved:
            if original is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
