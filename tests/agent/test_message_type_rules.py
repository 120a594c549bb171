"""Registering a custom message type: every rule it is checked against, and every input shape.

:func:`pi_sdk.register_message_type` refuses, with a sentence naming the type: a class that is
not a pydantic model, one with no ``role`` field, a role that is no single string (a default
or a one-value ``Literal``), an LLM role. :func:`pi_sdk.default_convert_to_llm` takes any
iterable (a generator too) and keeps subclasses of the LLM messages as they are, in order.
"""

from __future__ import annotations

from typing import Literal

import pytest
from _support.agent import isolated_plugins  # noqa: F401
from pydantic import BaseModel

import pi_sdk
from pi_sdk import AssistantMessage, TextContent, UserMessage
from pi_sdk._agent.messages import convert_message_to_llm, is_llm_message
from pi_sdk.errors import ConfigurationError


class NoRole(BaseModel):
    text: str = ""


class OpenRole(BaseModel):
    role: str


class TwoRoles(BaseModel):
    role: Literal["a", "b"]


class LlmRole(BaseModel):
    role: Literal["user"] = "user"


class Plain:
    role = "plainThing"


class ByAnnotation(BaseModel):
    role: Literal["piTestByAnnotation"]
    text: str = ""


@pytest.mark.parametrize(
    ("message_type", "error"),
    [
        (Plain, f"message type must be a pydantic model class, got {Plain!r}"),
        ("note", "message type must be a pydantic model class, got 'note'"),
        (NoRole, "NoRole has no 'role' field"),
        (
            OpenRole,
            'OpenRole.role must be a Literal with one string value (e.g. role: Literal["note"]'
            ' = "note")',
        ),
        (
            TwoRoles,
            'TwoRoles.role must be a Literal with one string value (e.g. role: Literal["note"]'
            ' = "note")',
        ),
        (LlmRole, "LlmRole uses the LLM role 'user'; custom messages need a role of their own"),
    ],
)
def test_a_type_that_breaks_a_rule_is_refused_by_name(message_type: object, error: str):
    with pytest.raises(ConfigurationError) as raised:
        pi_sdk.register_message_type(message_type, lambda m: [])  # type: ignore[arg-type]
    assert str(raised.value) == error
    assert pi_sdk.agent.get_message_types() == {}


def test_a_role_given_by_its_literal_alone_is_the_types_role():
    pi_sdk.register_message_type(ByAnnotation, lambda m: [UserMessage(content=m.text)])
    try:
        assert pi_sdk.agent.get_message_types() == {"piTestByAnnotation": ByAnnotation}
        note = ByAnnotation(role="piTestByAnnotation", text="hi")
        out = pi_sdk.default_convert_to_llm([note])
        assert [(m.role, m.content) for m in out] == [("user", "hi")]
    finally:
        pi_sdk.unregister_message_type(ByAnnotation)


class MyUser(UserMessage):
    """A subclass of an LLM message: kept as it is (not a custom message)."""


def test_any_iterable_converts_and_llm_subclasses_are_kept_in_order():
    a = AssistantMessage(content=[TextContent(text="a")], api="x", provider="y", model="z")
    mine = MyUser(content="mine")
    q = UserMessage(content="q")
    out = pi_sdk.default_convert_to_llm(
        m for m in [q, mine, ByAnnotation(role="piTestByAnnotation"), a]
    )
    assert [id(m) for m in out] == [id(q), id(mine), id(a)]


def test_what_counts_as_an_llm_message():
    a = AssistantMessage(content=[], api="x", provider="y", model="z")
    mine = MyUser(content="mine")
    assert [is_llm_message(m) for m in (UserMessage(content="q"), a, mine)] == [True] * 3
    assert [
        is_llm_message(m) for m in (ByAnnotation(role="piTestByAnnotation"), {"role": "user"})
    ] == [
        False,
        False,
    ]
    assert convert_message_to_llm(mine) == [mine] and convert_message_to_llm(mine)[0] is mine


def test_a_type_registered_again_for_its_role_replaces_the_old_one_for_good():
    # The first type's role is read at run time (a type made from settings): equal to the
    # second's literal, not the same object.
    from _support.strings import built
    from pydantic import create_model

    old = create_model("MemoFromSettings", role=(str, built("piTestMemo")))

    class Memo(BaseModel):
        role: Literal["piTestMemo"] = "piTestMemo"

    pi_sdk.register_message_type(old, lambda m: [])
    pi_sdk.register_message_type(Memo, lambda m: [], replace=True)
    assert pi_sdk.get_message_types() == {"piTestMemo": Memo}
    pi_sdk.unregister_message_type(Memo)  # the old type does not come back
    assert pi_sdk.get_message_types() == {}
