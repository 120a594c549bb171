"""A forward HTTP proxy on 127.0.0.1 that counts what it is asked, for the proxy-variable tests.

* an absolute-form request (``GET http://host:port/path HTTP/1.1``, what a client sends to an
  ``HTTP_PROXY``) is recorded and forwarded to ``upstream`` (every host maps to it: a host name
  that does not resolve, such as ``vendor.test``, works only through the proxy), its response
  relayed back chunked; the client's connection stays open for its next request;
* a ``CONNECT host:port`` (what a client sends to an ``HTTPS_PROXY``) is recorded and refused
  with ``403`` (no TLS server here: the count is what the tests read);
* ``407`` when ``credentials`` are set and the request's ``Proxy-Authorization`` differs.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from dataclasses import dataclass, field

import httpx2
import pytest

__all__ = ["PROXY_VARIABLES", "ForwardProxy", "clear_proxy_variables"]

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD")
"""What decides the proxy (``REQUEST_METHOD``: the CGI rule), in upper and lower case."""


def clear_proxy_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset :data:`PROXY_VARIABLES` for the test (the machine's own settings left out)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


_HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authorization", "proxy-connection", "transfer-encoding"}
)


@dataclass
class ForwardProxy:
    """``async with ForwardProxy(upstream) as proxy:`` ``proxy.url`` is ``http://127.0.0.1:PORT``.

    Args:
        upstream: Base URL every forwarded request goes to (``http://127.0.0.1:PORT``).
        credentials: ``"user:password"`` the client must send (``None``: no check).
    """

    upstream: str = "http://127.0.0.1:9"
    credentials: str | None = None
    targets: list[str] = field(default_factory=list[str])
    """``"METHOD target"`` of every request asked, in order (``CONNECT host:port`` included)."""
    url: str = ""

    async def __aenter__(self) -> ForwardProxy:
        self._client = httpx2.AsyncClient(trust_env=False, timeout=30)
        self._writers: set[asyncio.StreamWriter] = set()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._server.close()
        for writer in self._writers:
            writer.close()  # the handlers' reads end (EOF)
        await asyncio.sleep(0)
        await self._client.aclose()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = [tuple(line.split(":", 1)) for line in lines[1:] if ":" in line]
                names = {name.strip().lower(): value.strip() for name, value in headers}
                self.targets.append(f"{method} {target}")
                body = b""
                if "content-length" in names:
                    body = await reader.readexactly(int(names["content-length"]))
                if not self._authorized(names.get("proxy-authorization")):
                    await _reply(writer, 407, b"proxy credentials needed")
                    continue
                if method == "CONNECT":
                    await _reply(writer, 403, b"no tunnels here")
                    break
                await self._forward(writer, method, target, headers, body)
        self._writers.discard(writer)
        writer.close()

    def _authorized(self, header: str | None) -> bool:
        if self.credentials is None:
            return True
        expected = "Basic " + base64.b64encode(self.credentials.encode()).decode()
        return header == expected

    async def _forward(
        self,
        writer: asyncio.StreamWriter,
        method: str,
        target: str,
        headers: list[tuple[str, ...]],
        body: bytes,
    ) -> None:
        url = httpx2.URL(target)
        path = url.raw_path.decode("ascii")
        sent = [(n.strip(), v.strip()) for n, v in headers if n.strip().lower() not in _HOP_BY_HOP]
        request = self._client.build_request(
            method, self.upstream + path, headers=sent, content=body
        )
        response = await self._client.send(request, stream=True)
        try:
            lines = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
            lines += [
                f"{name}: {value}"
                for name, value in response.headers.multi_items()
                if name.lower() not in _HOP_BY_HOP and name.lower() != "content-length"
            ]
            lines.append("transfer-encoding: chunked")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            async for chunk in response.aiter_raw():
                if chunk:
                    writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        finally:
            await response.aclose()


async def _reply(writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    writer.write(
        b"HTTP/1.1 %d Proxy\r\ncontent-type: text/plain\r\ncontent-length: %d\r\n\r\n%s"
        % (status, len(body), body)
    )
    await writer.drain()
