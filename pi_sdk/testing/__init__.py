"""Test helpers: scripted providers, and provider traffic recorded once and replayed offline.

``from pi_sdk.testing import ScriptedProvider, ScriptedReply`` fakes a model without HTTP. The
cassette parts (``open_cassette``, ``replay_vcr``...) use vcrpy, which is imported only when one
of them is first used: importing ``pi_sdk`` or ``pi_sdk.testing`` imports no vcrpy.

The pytest plugin (:mod:`pi_sdk.testing.pytest_plugin`, registered through the ``pytest11`` entry
point) adds the ``pi_vcr`` marker, the ``pi_cassette`` fixture and the ``--pi-record`` option;
see ``docs/testing.md``. It imports nothing of pi-sdk until a test uses it.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._lazy import lazy_namespace as _lazy_namespace

if _typing.TYPE_CHECKING:
    from pi_sdk.testing._cassette import MISS_STATUS, CassetteSession, open_cassette
    from pi_sdk.testing._network import NetworkBlockedError, block_network
    from pi_sdk.testing._replay import (
        DUMMY_API_KEY,
        RecordedInteraction,
        ReplayCall,
        ReplayResult,
        load_cassette,
        plan_replay,
        replay,
        replay_all,
        replay_vcr,
    )
    from pi_sdk.testing._scripted import (
        SCRIPTED_API,
        ScriptedCall,
        ScriptedModel,
        ScriptedProvider,
        ScriptedReply,
        ScriptedStep,
    )
    from pi_sdk.testing._scrub import PLACEHOLDER, scrub_text, secrets_from_environ

_MODULES = {
    "pi_sdk.testing._cassette": ("CassetteSession", "MISS_STATUS", "open_cassette"),
    "pi_sdk.testing._network": ("NetworkBlockedError", "block_network"),
    "pi_sdk.testing._replay": (
        "DUMMY_API_KEY",
        "RecordedInteraction",
        "ReplayCall",
        "ReplayResult",
        "load_cassette",
        "plan_replay",
        "replay",
        "replay_all",
        "replay_vcr",
    ),
    "pi_sdk.testing._scripted": (
        "SCRIPTED_API",
        "ScriptedCall",
        "ScriptedModel",
        "ScriptedProvider",
        "ScriptedReply",
        "ScriptedStep",
    ),
    "pi_sdk.testing._scrub": ("PLACEHOLDER", "scrub_text", "secrets_from_environ"),
}
"""Where each public name is defined; imported on first use (``pi_sdk._lazy``)."""

__getattr__, __dir__ = _lazy_namespace(__name__, _MODULES, submodules=("pytest_plugin",))

__all__ = [
    "CassetteSession",
    "DUMMY_API_KEY",
    "MISS_STATUS",
    "NetworkBlockedError",
    "PLACEHOLDER",
    "RecordedInteraction",
    "ReplayCall",
    "ReplayResult",
    "SCRIPTED_API",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedProvider",
    "ScriptedReply",
    "ScriptedStep",
    "block_network",
    "load_cassette",
    "open_cassette",
    "plan_replay",
    "replay",
    "replay_all",
    "replay_vcr",
    "scrub_text",
    "secrets_from_environ",
]
