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

from pi_sdk._wire.exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "VOLATILE_BODY_KEYS": "pi_sdk._testing.body_match",
    "CassetteSession": "pi_sdk._testing.cassette",
    "MISS_STATUS": "pi_sdk._testing.cassette",
    "open_cassette": "pi_sdk._testing.cassette",
    "NetworkBlockedError": "pi_sdk._testing.network",
    "block_network": "pi_sdk._testing.network",
    "DUMMY_API_KEY": "pi_sdk._testing.replay",
    "RecordedInteraction": "pi_sdk._testing.replay",
    "ReplayCall": "pi_sdk._testing.replay",
    "ReplayResult": "pi_sdk._testing.replay",
    "load_cassette": "pi_sdk._testing.replay",
    "plan_replay": "pi_sdk._testing.replay",
    "replay": "pi_sdk._testing.replay",
    "replay_all": "pi_sdk._testing.replay",
    "replay_vcr": "pi_sdk._testing.replay",
    "SCRIPTED_API": "pi_sdk._testing.scripted",
    "ScriptedCall": "pi_sdk._testing.scripted",
    "ScriptedModel": "pi_sdk._testing.scripted",
    "ScriptedProvider": "pi_sdk._testing.scripted",
    "ScriptedReply": "pi_sdk._testing.scripted",
    "ScriptedStep": "pi_sdk._testing.scripted",
    "PLACEHOLDER": "pi_sdk._testing.scrub",
    "scrub_text": "pi_sdk._testing.scrub",
    "secrets_from_environ": "pi_sdk._testing.scrub",
    "pytest_plugin": "pi_sdk.testing.pytest_plugin",
}
"""Public name -> the module that defines it (a submodule names itself)."""

if _typing.TYPE_CHECKING:
    from pi_sdk._testing.body_match import VOLATILE_BODY_KEYS as VOLATILE_BODY_KEYS
    from pi_sdk._testing.cassette import MISS_STATUS as MISS_STATUS
    from pi_sdk._testing.cassette import CassetteSession as CassetteSession
    from pi_sdk._testing.cassette import open_cassette as open_cassette
    from pi_sdk._testing.network import NetworkBlockedError as NetworkBlockedError
    from pi_sdk._testing.network import block_network as block_network
    from pi_sdk._testing.replay import DUMMY_API_KEY as DUMMY_API_KEY
    from pi_sdk._testing.replay import RecordedInteraction as RecordedInteraction
    from pi_sdk._testing.replay import ReplayCall as ReplayCall
    from pi_sdk._testing.replay import ReplayResult as ReplayResult
    from pi_sdk._testing.replay import load_cassette as load_cassette
    from pi_sdk._testing.replay import plan_replay as plan_replay
    from pi_sdk._testing.replay import replay as replay
    from pi_sdk._testing.replay import replay_all as replay_all
    from pi_sdk._testing.replay import replay_vcr as replay_vcr
    from pi_sdk._testing.scripted import SCRIPTED_API as SCRIPTED_API
    from pi_sdk._testing.scripted import ScriptedCall as ScriptedCall
    from pi_sdk._testing.scripted import ScriptedModel as ScriptedModel
    from pi_sdk._testing.scripted import ScriptedProvider as ScriptedProvider
    from pi_sdk._testing.scripted import ScriptedReply as ScriptedReply
    from pi_sdk._testing.scripted import ScriptedStep as ScriptedStep
    from pi_sdk._testing.scrub import PLACEHOLDER as PLACEHOLDER
    from pi_sdk._testing.scrub import scrub_text as scrub_text
    from pi_sdk._testing.scrub import secrets_from_environ as secrets_from_environ
    from pi_sdk.testing import pytest_plugin as pytest_plugin

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)
