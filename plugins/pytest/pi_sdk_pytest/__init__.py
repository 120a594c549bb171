"""pi-sdk-pytest: provider traffic recorded once and replayed offline, and the conformance kit.

The pytest plugin (:mod:`pi_sdk_pytest.plugin`, the ``pytest11`` entry point ``pi_sdk``) adds
the ``pi_vcr`` marker, the ``pi_cassette`` fixture and ``--record-mode`` / ``--pi-record``
(``docs/testing.md``). The cassette parts (:func:`open_cassette`, scrubbing, the network guard,
body matching) use vcrpy. The conformance kit (:class:`ProviderConformance`) is the test suite a
provider package runs against its own provider (``docs/plugins/conformance-kit.md``).

Names are imported on first use (PEP 562, the literal table below): importing this package, as
pytest does through the plugin, imports nothing of pi-sdk and no vcrpy.
"""

from __future__ import annotations

import importlib
import typing as _typing

_EXPORTS = {
    "VOLATILE_BODY_KEYS": "pi_sdk_pytest.body_match",
    "CassetteSession": "pi_sdk_pytest.cassette",
    "MISS_STATUS": "pi_sdk_pytest.cassette",
    "open_cassette": "pi_sdk_pytest.cassette",
    "ConformanceFailure": "pi_sdk_pytest.conformance.failure",
    "ProviderConformance": "pi_sdk_pytest.conformance.suite",
    "ProviderUnderTest": "pi_sdk_pytest.conformance.declaration",
    "RecordedBody": "pi_sdk_pytest.conformance.declaration",
    "NetworkBlockedError": "pi_sdk_pytest.network",
    "block_network": "pi_sdk_pytest.network",
    "PLACEHOLDER": "pi_sdk_pytest.scrub",
    "scrub_text": "pi_sdk_pytest.scrub",
    "secrets_from_environ": "pi_sdk_pytest.scrub",
}
"""Public name -> the module that defines it."""

__all__ = [
    "CassetteSession",
    "ConformanceFailure",
    "MISS_STATUS",
    "NetworkBlockedError",
    "PLACEHOLDER",
    "ProviderConformance",
    "ProviderUnderTest",
    "RecordedBody",
    "VOLATILE_BODY_KEYS",
    "block_network",
    "open_cassette",
    "scrub_text",
    "secrets_from_environ",
]

if _typing.TYPE_CHECKING:
    from pi_sdk_pytest.body_match import VOLATILE_BODY_KEYS as VOLATILE_BODY_KEYS
    from pi_sdk_pytest.cassette import MISS_STATUS as MISS_STATUS
    from pi_sdk_pytest.cassette import CassetteSession as CassetteSession
    from pi_sdk_pytest.cassette import open_cassette as open_cassette
    from pi_sdk_pytest.conformance.declaration import ProviderUnderTest as ProviderUnderTest
    from pi_sdk_pytest.conformance.declaration import RecordedBody as RecordedBody
    from pi_sdk_pytest.conformance.failure import ConformanceFailure as ConformanceFailure
    from pi_sdk_pytest.conformance.suite import ProviderConformance as ProviderConformance
    from pi_sdk_pytest.network import NetworkBlockedError as NetworkBlockedError
    from pi_sdk_pytest.network import block_network as block_network
    from pi_sdk_pytest.scrub import PLACEHOLDER as PLACEHOLDER
    from pi_sdk_pytest.scrub import scrub_text as scrub_text
    from pi_sdk_pytest.scrub import secrets_from_environ as secrets_from_environ


def __getattr__(name: str) -> object:
    """Import ``name``'s module on first use and return the name.

    Raises:
        AttributeError: ``name`` is not exported here.
    """
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The exported names and the module's own."""
    return sorted({*globals(), *_EXPORTS})
