"""Every exception class pi-sdk raises (``pi_sdk/errors.py``): where it sits in the hierarchy,
which builtin a caller may also catch it as, and what it carries."""

from __future__ import annotations

import pytest

import pi_sdk.errors as errors
from pi_sdk import AssistantMessage, TextContent


@pytest.mark.parametrize(
    ("cls", "bases"),
    [
        (errors.ConfigurationError, (errors.PiSdkError,)),
        (errors.ProviderNotFoundError, (errors.ConfigurationError, LookupError)),
        (errors.ModelNotFoundError, (errors.ConfigurationError, LookupError)),
        (errors.PluginLoadError, (errors.ConfigurationError,)),
        (errors.AgentBusyError, (errors.PiSdkError, RuntimeError)),
        (errors.SessionFileError, (errors.PiSdkError, ValueError)),
        (errors.ToolArgumentsError, (errors.PiSdkError, ValueError)),
        (errors.AssistantError, (errors.PiSdkError,)),
        (errors.AbortedError, (errors.AssistantError,)),
    ],
)
def test_each_error_is_caught_as_its_documented_bases(cls: type, bases: tuple[type, ...]) -> None:
    assert all(issubclass(cls, base) for base in bases)
    assert issubclass(cls, errors.PiSdkError) and issubclass(errors.PiSdkError, Exception)
    others = {LookupError, RuntimeError, ValueError} - set(bases)
    assert not any(issubclass(cls, other) for other in others)


def test_a_plugin_load_error_names_the_plugin_and_keeps_the_cause() -> None:
    cause = ImportError("no module named 'x'")
    error = errors.PluginLoadError("audit-log", cause)
    assert str(error) == "plugin 'audit-log' failed to load: ImportError: no module named 'x'"
    assert (error.plugin, error.cause) == ("audit-log", cause)


def _reply(stop: str, error: str | None = None) -> AssistantMessage:
    return AssistantMessage(
        api="a",
        provider="p",
        model="m",
        content=[TextContent(text="partial")],
        stop_reason=stop,  # type: ignore[arg-type]
        error_message=error,
    )


@pytest.mark.parametrize(
    ("stop", "error", "raised", "text"),
    [
        ("error", "overloaded", errors.AssistantError, "overloaded"),
        ("error", None, errors.AssistantError, "assistant message ended: error"),
        ("aborted", "stopped by user", errors.AbortedError, "stopped by user"),
        ("aborted", None, errors.AbortedError, "assistant message ended: aborted"),
    ],
)
def test_raise_for_error_raises_with_the_message_kept(
    stop: str, error: str | None, raised: type, text: str
) -> None:
    message = _reply(stop, error)
    with pytest.raises(raised) as caught:
        message.raise_for_error()
    assert type(caught.value) is raised and str(caught.value) == text
    assert caught.value.assistant_message is message  # type: ignore[attr-defined]


@pytest.mark.parametrize("stop", ["stop", "length", "toolUse"])
def test_raise_for_error_returns_a_reply_that_did_not_fail(stop: str) -> None:
    message = _reply(stop)
    assert message.raise_for_error() is message
