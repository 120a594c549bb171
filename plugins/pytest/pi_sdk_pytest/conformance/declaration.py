"""What a provider author declares for the conformance kit: the model and a few recorded bodies.

The kit serves every body from its own HTTP server on 127.0.0.1 and calls the provider through
:func:`pi_sdk.stream`, so the declaration says only how to point a model at that server, which
bodies the vendor really sent, and where the provider reads its API key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import yaml

from pi_sdk import Model

__all__ = ["ProviderUnderTest", "RecordedBody"]


@dataclass(frozen=True, kw_only=True)
class RecordedBody:
    """One response body the vendor sent for a successful call, byte for byte.

    A streamed reply (``text/event-stream``, Bedrock's ``application/vnd.amazon.eventstream``)
    or a whole JSON answer (``application/json``). Record it from the real API (a cassette of
    the pytest plugin holds it) and keep it short: the truncation rule makes one call per byte.
    """

    name: str
    """Shown in failure messages, e.g. ``"text"`` or ``"tool call"``."""
    body: bytes
    """The response body as the server sent it (decompressed)."""
    content_type: str
    """The response's ``content-type`` header, e.g. ``"text/event-stream; charset=utf-8"``."""

    @classmethod
    def from_file(
        cls, path: str | Path, content_type: str, *, name: str | None = None
    ) -> RecordedBody:
        """Read a body saved as a file (named after the file's stem unless ``name`` is given).

        Raises:
            OSError: the file cannot be read.
        """
        path = Path(path)
        return cls(name=name or path.stem, body=path.read_bytes(), content_type=content_type)

    @classmethod
    def from_cassette(
        cls, path: str | Path, *, interaction: int = 0, name: str | None = None
    ) -> RecordedBody:
        """Take the response body of one interaction of a vcrpy YAML cassette.

        ``content_type`` comes from the recorded response headers. A cassette recorded by the
        pytest plugin (``@pytest.mark.pi_vcr``) or by another vcrpy user works.

        Raises:
            OSError: the file cannot be read.
            ValueError: the interaction does not exist or has no body.
        """
        path = Path(path)
        loaded: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
        recorded = _as_dict(loaded).get("interactions")
        interactions = cast(list[Any], recorded) if isinstance(recorded, list) else []
        if not 0 <= interaction < len(interactions):
            raise ValueError(f"{path} has no interaction {interaction}")
        response = _as_dict(_as_dict(interactions[interaction]).get("response"))
        body = _as_dict(response.get("body")).get("string")
        if body is None:
            raise ValueError(f"interaction {interaction} of {path} has no response body")
        headers = _as_dict(response.get("headers"))
        content_type = next(
            (_first(v) for k, v in headers.items() if k.lower() == "content-type"), ""
        )
        data = body if isinstance(body, bytes) else str(body).encode("utf-8")
        return cls(name=name or f"{path.stem}[{interaction}]", body=data, content_type=content_type)


def _as_dict(value: Any) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def _first(value: Any) -> str:
    """A header's value: vcrpy stores a list of values."""
    if isinstance(value, list):
        values = cast(list[Any], value)
        return str(values[0]) if values else ""
    return str(value)


@dataclass(frozen=True, kw_only=True)
class ProviderUnderTest:
    """A provider package's declaration for :class:`pi_sdk_pytest.ProviderConformance`.

    Set as the ``provider`` class attribute of a ``ProviderConformance`` subclass (an example is
    in :mod:`pi_sdk_pytest.conformance.suite`).

    Raises:
        ValueError: no recorded body was given.
    """

    name: str
    """The provider's name in failure messages."""
    model: Callable[[str], Model]
    """The model to call, given the kit server's URL (``"http://127.0.0.1:<port>"``, no
    trailing slash): usually a catalog model with ``base_url`` set from it. Called with the
    provider installed (:attr:`plugin`)."""
    bodies: Sequence[RecordedBody]
    """Recorded successful response bodies of the vendor (at least one)."""
    api_key_env: str | None = None
    """The environment variable the provider reads its key from (its ``ProviderAuth.env``, or
    its ``get_api_key`` hook): the kit sets it to a fake key for each check. ``None``: the key
    is passed as ``StreamOptions(api_key=...)``."""
    plugin: object | None = None
    """What the package's entry point names: its :class:`pi_sdk.Provider` (or a sequence of
    them), or an object or module with hook implementations; registered alone in a fresh plugin
    manager for each check. ``None``: the installed plugins (entry points)."""
    provider_options: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """``StreamOptions.provider_options`` of every call (a region, an API version...)."""
    release_deadline_s: float = 10.0
    """Seconds the kit waits for the server to see a connection closed before it reports a leak.
    A bound that turns a leak into a failure instead of a hang, never a timing assertion: a
    provider that closes its response is seen within a few event-loop turns."""
    call_deadline_s: float = 60.0
    """Seconds one call may take before the kit reports it hanging (same purpose)."""

    def __post_init__(self) -> None:
        if not self.bodies:
            raise ValueError(f"ProviderUnderTest {self.name!r}: give at least one recorded body")
