"""A loopback HTTP/1.1 server, in its own process, that answers every request with one body.

The runner (``benchmarks/run.py``) writes the bodies to a folder, starts this script on
127.0.0.1 and selects the body to serve with ``POST /__select__/<name>`` before each consumer
runs; every other request (any method, any path) gets ``200`` with that body and its content
type, ``Content-Length`` framed, on a kept-alive connection. The server runs in another process,
so the consumer's CPU time (``time.process_time`` of the runner) does not include it.

Run by :class:`LoopbackServer`; by hand: ``python benchmarks/_loopback_server.py DIR PORT_FILE``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType

_SELECT = b"/__select__/"


class _Bodies:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.current: tuple[bytes, bytes] = (b"", b"")
        self._cache: dict[str, tuple[bytes, bytes]] = {}

    def select(self, name: str) -> None:
        if name not in self._cache:
            body = (self.folder / f"{name}.body").read_bytes()
            kind = (self.folder / f"{name}.type").read_bytes().strip()
            head = b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ncontent-length: %d\r\n\r\n"
            self._cache[name] = (head % (kind, len(body)), body)
        self.current = self._cache[name]


async def _serve(bodies: _Bodies, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            line, _, rest = head.partition(b"\r\n")
            length = 0
            chunked = False
            for header in rest.split(b"\r\n"):
                name, _, value = header.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"transfer-encoding" and b"chunked" in value.lower():
                    chunked = True
            if chunked:
                while True:
                    size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                    await reader.readexactly(size + 2)
                    if size == 0:
                        break
            elif length:
                await reader.readexactly(length)
            target = line.split(b" ")[1]
            if target.startswith(_SELECT):
                bodies.select(target[len(_SELECT) :].decode())
                writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
            else:
                head_bytes, body = bodies.current
                writer.write(head_bytes)
                writer.write(body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _main(folder: Path, port_file: Path) -> None:
    bodies = _Bodies(folder)
    server = await asyncio.start_server(
        lambda r, w: _serve(bodies, r, w), "127.0.0.1", 0, backlog=4096
    )
    port = server.sockets[0].getsockname()[1]
    port_file.write_text(str(port))
    async with server:
        await server.serve_forever()


class LoopbackServer:
    """The server process: ``with LoopbackServer() as server: server.add(...)``, then ``select``."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="pi-bench-")
        self.folder = Path(self._dir.name)
        self._process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, name: str, body: bytes, content_type: str) -> None:
        """Store a body the server can be told to serve (before or after it started)."""
        (self.folder / f"{name}.body").write_bytes(body)
        (self.folder / f"{name}.type").write_text(content_type)

    def select(self, name: str) -> None:
        """Serve ``name`` from now on (a blocking request: call it outside timed code)."""
        request = urllib.request.Request(f"{self.url}/__select__/{name}", method="POST", data=b"")
        with urllib.request.urlopen(request) as response:
            response.read()

    def __enter__(self) -> LoopbackServer:
        port_file = self.folder / "port"
        self._process = subprocess.Popen(
            [sys.executable, __file__, str(self.folder), str(port_file)],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + 20
        while not port_file.exists() or not port_file.read_text():
            if time.monotonic() > deadline or self._process.poll() is not None:
                raise RuntimeError("the loopback server did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text())
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(10)
        self._dir.cleanup()


if __name__ == "__main__":
    asyncio.run(_main(Path(sys.argv[1]), Path(sys.argv[2])))
