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
    from pi_sdk.testing._body_match import VOLATILE_BODY_KEYS as VOLATILE_BODY_KEYS
    from pi_sdk.testing._cassette import MISS_STATUS as MISS_STATUS
    from pi_sdk.testing._cassette import CassetteSession as CassetteSession
    from pi_sdk.testing._cassette import open_cassette as open_cassette
    from pi_sdk.testing._network import NetworkBlockedError as NetworkBlockedError
    from pi_sdk.testing._network import block_network as block_network
    from pi_sdk.testing._replay import DUMMY_API_KEY as DUMMY_API_KEY
    from pi_sdk.testing._replay import RecordedInteraction as RecordedInteraction
    from pi_sdk.testing._replay import ReplayCall as ReplayCall
    from pi_sdk.testing._replay import ReplayResult as ReplayResult
    from pi_sdk.testing._replay import load_cassette as load_cassette
    from pi_sdk.testing._replay import plan_replay as plan_replay
    from pi_sdk.testing._replay import replay as replay
    from pi_sdk.testing._replay import replay_all as replay_all
    from pi_sdk.testing._replay import replay_vcr as replay_vcr
    from pi_sdk.testing._scripted import SCRIPTED_API as SCRIPTED_API
    from pi_sdk.testing._scripted import ScriptedCall as ScriptedCall
    from pi_sdk.testing._scripted import ScriptedModel as ScriptedModel
    from pi_sdk.testing._scripted import ScriptedProvider as ScriptedProvider
    from pi_sdk.testing._scripted import ScriptedReply as ScriptedReply
    from pi_sdk.testing._scripted import ScriptedStep as ScriptedStep
    from pi_sdk.testing._scrub import PLACEHOLDER as PLACEHOLDER
    from pi_sdk.testing._scrub import scrub_text as scrub_text
    from pi_sdk.testing._scrub import secrets_from_environ as secrets_from_environ

__getattr__, __dir__ = _lazy_namespace(__name__, submodules=("pytest_plugin",))
