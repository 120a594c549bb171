"""The records ``pi_sdk.testing`` exports are built by keyword only (a documented contract).

``ScriptedReply``, ``ScriptedCall``, ``RecordedInteraction``, ``ReplayCall`` and
``ReplayResult`` are keyword-only dataclasses: a field added later, anywhere in the class,
never shifts what a positional call meant. A positional call is a ``TypeError``; the fields
given by keyword round-trip.
"""

from __future__ import annotations

import dataclasses

import pytest

import pi_sdk.testing as testing

RECORDS = [name for name in testing.__all__ if dataclasses.is_dataclass(getattr(testing, name))]


def test_the_list_is_every_exported_record() -> None:
    assert sorted(RECORDS) == [
        "RecordedInteraction",
        "ReplayCall",
        "ReplayResult",
        "ScriptedCall",
        "ScriptedReply",
    ]


@pytest.mark.parametrize("name", RECORDS)
def test_every_field_is_keyword_only_and_a_positional_call_is_refused(name: str) -> None:
    record = getattr(testing, name)
    fields = dataclasses.fields(record)
    assert fields and all(f.kw_only for f in fields)
    assert record.__match_args__ == ()
    with pytest.raises(TypeError, match="positional argument"):
        record(*[None] * len(fields))


def test_a_scripted_reply_given_by_keyword_keeps_what_it_was_given() -> None:
    reply = testing.ScriptedReply(content=[], stop_reason="stop", error=None)
    assert (reply.content, reply.stop_reason, reply.error) == ([], "stop", None)


@pytest.mark.parametrize(
    ("name", "positional", "keyword_only"),
    [
        ("ScriptedProvider", ["replies"], ["model_id", "provider", "reasoning"]),
        ("ScriptedReply.tool_call", ["name", "arguments"], ["id", "text"]),
        ("plan_replay", ["interactions"], ["api"]),
        ("replay", ["path"], ["api", "options"]),
        ("replay_all", ["path"], ["api", "options"]),
    ],
)
def test_the_options_of_the_helpers_are_keyword_only(
    name: str, positional: list[str], keyword_only: list[str]
) -> None:
    import inspect

    target: object = testing
    for part in name.split("."):
        target = getattr(target, part)
    parameters = inspect.signature(target).parameters.values()  # type: ignore[arg-type]
    kinds = {p.name: p.kind for p in parameters if p.kind is not p.VAR_KEYWORD}
    assert kinds == {
        **dict.fromkeys(positional, inspect.Parameter.POSITIONAL_OR_KEYWORD),
        **dict.fromkeys(keyword_only, inspect.Parameter.KEYWORD_ONLY),
    }


def test_a_scripted_provider_s_model_id_is_not_taken_by_position() -> None:
    with pytest.raises(TypeError, match="positional argument"):
        testing.ScriptedProvider(["hi"], "scripted-by-position")  # type: ignore[misc]
    named = testing.ScriptedProvider(replies=["hi"], model_id="scripted-by-name")
    assert (named.model.id, named.remaining) == ("scripted-by-name", 1)
