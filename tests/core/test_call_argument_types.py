"""``stream()`` / ``complete()`` with an argument of the wrong kind raise a ``TypeError`` at once.

A ``"provider/id"`` string for the model, a list of messages for the context or a dict for the
options is a programming error, not a failed call: it raises synchronously (as an unknown API
does, pi-mono throws there too), naming the argument, what it got and what to pass, instead of
an ``AttributeError`` from deep inside or an ``error`` event about ``model_copy``.
"""

from __future__ import annotations

import pytest
from _support.agent import isolated_plugins  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk._wire.argument_kinds import described
from pi_sdk.testing import ScriptedProvider

CONTEXT = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
MODEL_HINT = "must be a pi_sdk.Model, e.g. pi_sdk.get_model('anthropic', 'claude-sonnet-4-5')"


def _cases(model: pi_sdk.Model) -> list[tuple[tuple[object, ...], str]]:
    return [
        (
            ("anthropic/claude-sonnet-4-5", CONTEXT),
            f"stream() model {MODEL_HINT}; got str 'anthropic/claude-sonnet-4-5'",
        ),
        ((None, CONTEXT), f"stream() model {MODEL_HINT}; got NoneType None"),
        (
            (model, [pi_sdk.UserMessage(content="hi", timestamp=1)]),
            "stream() context must be a pi_sdk.Context, e.g. pi_sdk.Context(messages=[...]);"
            " got list [UserMessage(role='user', content='hi', timestamp=1)]",
        ),
        (
            (model, CONTEXT, {"max_tokens": 5}),
            "stream() options must be a pi_sdk.StreamOptions or None; got dict {'max_tokens': 5}",
        ),
    ]


@pytest.mark.parametrize("index", range(4))
async def test_an_argument_of_the_wrong_kind_is_a_type_error_naming_it(index: int) -> None:
    provider = ScriptedProvider(["never"])
    args, message = _cases(provider.model)[index]
    for call in (pi_sdk.stream, pi_sdk.Models([]).stream):
        with pytest.raises(TypeError) as info:
            call(*args)  # pyright: ignore[reportArgumentType]
        assert str(info.value) == message
    with pytest.raises(TypeError) as info:
        await pi_sdk.complete(*args)  # pyright: ignore[reportArgumentType]
    assert str(info.value) == message
    assert provider.calls == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("x" * 98, "str '" + "x" * 98 + "'"),  # a repr of 100 characters is shown whole
        ("x" * 99, "str '" + "x" * 98 + "…"),  # 101: cut to 99, and the mark
        ([1] * 40, "list " + repr([1] * 40)[:99] + "…"),
        (None, "NoneType None"),
    ],
)
def test_what_an_argument_got_is_its_type_and_at_most_100_characters_of_its_repr(
    value: object, expected: str
) -> None:
    assert described(value) == expected
    with pytest.raises(TypeError) as info:
        pi_sdk.stream(value, CONTEXT)  # pyright: ignore[reportArgumentType]
    assert str(info.value) == f"stream() model {MODEL_HINT}; got {expected}"
