"""A stdlib HTTP server on 127.0.0.1 in a background thread, for tests with blocking clients.

For clients that block the calling thread (the OTLP/HTTP exporter, a sync ``httpx2`` client
under vcrpy), where the asyncio loopback server (:mod:`_support.loopback`) would never run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["threaded_http_server"]


@contextmanager
def threaded_http_server(
    handler: type[BaseHTTPRequestHandler], **state: Any
) -> Iterator[ThreadingHTTPServer]:
    """Serve ``handler`` on 127.0.0.1 (a free port) for the block; ``state`` set on the server.

    The handler reaches ``state`` as ``self.server.<name>`` (e.g. a list of received posts).
    """
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    for name, value in state.items():
        setattr(server, name, value)
    # shutdown() waits for serve_forever's next poll: 20 ms, not the default half second
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
