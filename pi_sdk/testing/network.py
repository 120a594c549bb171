"""A network guard for replayed tests: outgoing IP connections fail loudly.

While a cassette is replayed, a request that is not in the cassette must never reach a real
server (it would need a key, cost money, and make the test depend on the network). vcrpy already
refuses unmatched requests made through ``httpx2``; this guard covers everything else that opens
an ``AF_INET``/``AF_INET6`` socket (another HTTP library, a raw socket). Unix sockets and
``socketpair`` (asyncio's self-pipe) are untouched.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Generator, Iterable
from contextlib import contextmanager
from typing import Any, cast

__all__ = ["NetworkBlockedError", "block_network"]

_IP_FAMILIES = (socket.AF_INET, socket.AF_INET6)


class NetworkBlockedError(RuntimeError):
    """A test tried to open a network connection while its cassette was replayed.

    Deliberately not an ``OSError``: HTTP clients treat those as retryable connection errors and
    would retry, hiding the cause.
    """


@contextmanager
def block_network(
    allowed_hosts: Iterable[str] = (),
    on_block: Callable[[str], None] | None = None,
) -> Generator[None]:
    """Make ``socket.connect``/``connect_ex`` to IP addresses raise :class:`NetworkBlockedError`.

    Args:
        allowed_hosts: Hosts (as passed to ``connect``, usually IP addresses such as
            ``"127.0.0.1"``) that stay reachable.
        on_block: Called with a description (``"host:port"``) of every blocked attempt, so a
            caller can fail the test even when the library swallowed the exception.

    Not thread-safe against other code patching ``socket.socket`` at the same time; the original
    methods are restored on exit.
    """
    allowed = {h.lower() for h in allowed_hosts}
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family not in _IP_FAMILIES:
            return
        parts = cast(tuple[Any, ...], address) if isinstance(address, tuple) else (address,)
        host = str(parts[0]) if parts else ""
        if host.lower() in allowed:
            return
        where = f"{host}:{parts[1]}" if len(parts) > 1 else host
        if on_block is not None:
            on_block(where)
        raise NetworkBlockedError(
            f"network access blocked while replaying a cassette: connect to {where}. "
            "Record the test with --pi-record (real API keys), or allow the host with "
            "@pytest.mark.pi_vcr(allowed_hosts=[...])."
        )

    def connect(self: socket.socket, address: Any) -> None:
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(self, address)
        return real_connect_ex(self, address)

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    try:
        yield
    finally:
        socket.socket.connect = real_connect
        socket.socket.connect_ex = real_connect_ex
