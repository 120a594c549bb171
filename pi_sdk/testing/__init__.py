"""Test helpers: scripted providers, and recorded calls replayed through the real adapters.

``from pi_sdk.testing import ScriptedProvider, ScriptedReply`` fakes a model without HTTP.
``replay`` / ``replay_all`` / ``replay_vcr`` play a vcrpy cassette recorded by any client through
pi-sdk's providers (``pi-sdk replay``); they need vcrpy, which the ``replay`` extra (and the
``cli`` extra) of ``pi-sdk-core`` installs and which is imported only when one of them is first
used: importing ``pi_sdk`` or ``pi_sdk.testing`` imports no vcrpy.

The pytest plugin (the ``pi_vcr`` marker, ``--record-mode``), cassette recording with strict
replay, scrubbing, the network guard and the provider conformance kit live in the
``pi-sdk-pytest`` distribution (``pi_sdk_pytest``); see ``docs/testing.md``.

The records exported here (``ScriptedReply``, ``ScriptedCall``, ``RecordedInteraction``,
``ReplayCall``, ``ReplayResult``) are built by keyword only: a field added later never shifts
what a positional call meant.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._wire.exports import lazy_exports as _lazy_exports

_EXPORTS = {
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
}
"""Public name -> the module that defines it (a submodule names itself)."""

if _typing.TYPE_CHECKING:
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

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)
