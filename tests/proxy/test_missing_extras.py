"""The proxy's client and server name the extra to install when their library is missing
(``pi_sdk/_serve/event_post.py``, ``pi_sdk/_serve/server.py``).
"""

from __future__ import annotations

import sys

import pytest

from pi_sdk import ConfigurationError
from pi_sdk._serve.event_post import event_post_call


async def test_the_event_post_client_names_the_proxy_extra(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "httpx2", None)
    with pytest.raises(ConfigurationError) as caught:
        await event_post_call(
            "http://x/messages", lambda origin: {}, headers={}, refusal=None, source="gateway"
        )  # type: ignore[arg-type]
    assert str(caught.value) == "the gateway client needs httpx2: pip install 'pi-sdk-core[proxy]'"


def test_the_proxy_app_names_the_serve_extra(monkeypatch: pytest.MonkeyPatch):
    from pi_sdk._serve.policy import ProxyPolicy
    from pi_sdk._serve.server import proxy_app

    monkeypatch.setitem(sys.modules, "starlette.applications", None)
    with pytest.raises(ConfigurationError) as caught:
        proxy_app(ProxyPolicy(token="t", allow=("a/*",)))
    assert str(caught.value) == "proxy_app needs Starlette: pip install 'pi-sdk-core[serve]'"
