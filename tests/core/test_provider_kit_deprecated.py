"""Names the provider kit exported before issue 26 still answer, with a warning saying what to use.

``pi_sdk.provider._DEPRECATED`` groups them by what happened to them (moved to ``pi_sdk``, no
longer public, replaced); each read must give the very object the old name gave.
"""

from __future__ import annotations

import importlib
import warnings

import pytest

import pi_sdk
import pi_sdk.provider as kit

DEPRECATED = kit._DEPRECATED  # pyright: ignore[reportPrivateUsage]


def _read(name: str) -> tuple[object, str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(kit, name)
    assert [w.category for w in caught] == [DeprecationWarning], name
    return value, str(caught[0].message)


@pytest.mark.parametrize("name", sorted(DEPRECATED))
def test_a_deprecated_kit_name_warns_and_gives_the_object_of_its_module(name: str):
    module, instead = DEPRECATED[name]
    value, message = _read(name)
    assert value is getattr(importlib.import_module(module), name)
    assert message == (
        f"pi_sdk.provider.{name} is deprecated and leaves in a later release; {instead}"
    )
    assert name not in kit.__all__ and name not in dir(kit)
    assert name not in vars(kit)  # not kept: every read warns again


@pytest.mark.parametrize(
    ("name", "defined_in"),
    [
        ("Model", "pi_sdk.types"),
        ("StreamOptions", "pi_sdk.options"),
        ("TextDeltaEvent", "pi_sdk.events"),
        ("ConfigurationError", "pi_sdk.errors"),
        ("get_model", "pi_sdk._models.default"),
        ("tune_gc_for_streams", "pi_sdk._kit.gc_tuning"),
    ],
)
def test_a_name_that_moved_to_pi_sdk_is_the_same_object_and_says_where(name: str, defined_in: str):
    value, message = _read(name)
    assert value is getattr(pi_sdk, name) is getattr(importlib.import_module(defined_in), name)
    assert message.endswith(f"import it from pi_sdk (`pi_sdk.{name}`)")


@pytest.mark.parametrize(
    ("name", "defined_in", "instead"),
    [
        ("calculate_cost", "pi_sdk._wire.cost", "it is no longer part of the provider kit"),
        ("ServerSentEvent", "pi_sdk._stream.sse", "it is no longer part of the provider kit"),
        ("Redactor", "pi_sdk._wire.redact", "import it from pi_sdk.plugins"),
        ("models_hook", "pi_sdk._kit.plugin_hooks", "through the entry point instead"),
    ],
)
def test_a_name_that_left_the_kit_still_gives_its_object(name: str, defined_in: str, instead: str):
    value, message = _read(name)
    assert value is getattr(importlib.import_module(defined_in), name)
    assert message.endswith(instead)
