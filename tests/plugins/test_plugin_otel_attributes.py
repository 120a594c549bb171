"""pi-sdk-otel's attribute values, each rule at the function that makes it.

``error.type``: ``aborted``, the HTTP status a vendor error begins with, ``timeout``, else
``_OTHER`` (and none for a call that did not fail). ``gen_ai.output.messages``: every block
kind of a reply as its part (text, reasoning, tool call, image without its bytes) and every
stop reason as the schema's finish reason. Tool arguments JSON cannot encode are shown by
their ``repr``. The instrumentation scope's version is the installed package's.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

import pytest
from _support.messages import reply as assistant_reply
from pi_sdk_otel import attributes as attr

from pi_sdk import AssistantMessage, ImageContent, Model, TextContent, ThinkingContent, ToolCall

MODEL = Model(id="m", api="a", provider="p")


def reply(*content: Any, stop_reason: str = "stop", error: str | None = None) -> AssistantMessage:
    return assistant_reply(MODEL, *content, stop_reason=stop_reason, error_message=error)


@pytest.mark.parametrize(
    ("stop_reason", "error", "kind"),
    [
        ("stop", None, None),
        ("length", None, None),
        ("toolUse", None, None),
        ("pending", None, None),  # every stop reason that is not a failure (pi-ai 1.6's too)
        ("deferred", None, None),
        ("aborted", "Request was aborted", "aborted"),
        ("error", "429 Too Many Requests: slow down", "429"),
        ("error", "503: overloaded", "503"),
        ("error", "600 is not a status", "_OTHER"),
        ("error", "4290 tokens", "_OTHER"),
        ("error", "timed out after 30000 ms without a byte", "timeout"),
        ("error", "the request timed out", "_OTHER"),
        ("error", "connection refused", "_OTHER"),
        ("error", None, "_OTHER"),
    ],
)
def test_error_type(stop_reason: str, error: str | None, kind: str | None) -> None:
    assert attr.error_type(reply(stop_reason=stop_reason, error=error)) == kind


class Unencodable:
    def __repr__(self) -> str:
        return "<Unencodable>"


def test_every_block_of_a_reply_is_its_part() -> None:
    message = reply(
        TextContent(text="Hi é"),
        ThinkingContent(thinking="plan"),
        ToolCall(id="c1", name="f", arguments={"a": 1, "odd": Unencodable()}),
        ImageContent(data="aGVsbG8=", mime_type="image/png"),
        stop_reason="toolUse",
    )
    assert json.loads(attr.output_messages(message)) == [
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "content": "Hi é"},
                {"type": "reasoning", "content": "plan"},
                {
                    "type": "tool_call",
                    "id": "c1",
                    "name": "f",
                    "arguments": {"a": 1, "odd": "<Unencodable>"},
                },
                {"type": "image", "modality": "image", "mime_type": "image/png"},
            ],
            "finish_reason": "tool_call",
        }
    ]
    assert "Hi é" in attr.output_messages(message)  # not \\u escaped


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("toolUse", "tool_call"),
        ("error", "error"),
        ("aborted", "error"),
    ],
)
def test_every_stop_reason_is_a_finish_reason(stop_reason: str, finish: str) -> None:
    sent = json.loads(attr.output_messages(reply(stop_reason=stop_reason)))
    assert sent == [{"role": "assistant", "parts": [], "finish_reason": finish}]


def test_the_scope_version_is_the_installed_packages() -> None:
    attr.scope_version.cache_clear()  # worked out here, not by whichever test ran first
    assert attr.scope_version() == version("pi-sdk-otel")


def test_a_tool_value_holding_models_is_their_json_without_nulls() -> None:
    # gen_ai.tool.call.arguments/result: pydantic models inside are written as their own
    # JSON (aliases, no null fields), a pi wire object as pi's JSON; anything else as repr.
    from pydantic import BaseModel, Field

    from pi_sdk import ToolResultMessage

    class Hit(BaseModel):
        path: str
        line_no: int | None = Field(default=None, alias="lineNo")
        note: str | None = None

    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    result = ToolResultMessage(tool_call_id="c1", tool_name="grep", content=[TextContent(text="x")])
    value = {
        "hits": [Hit(path="a.py"), Hit(path="b.py", lineNo=3)],
        "message": result,
        "other": Opaque(),
    }
    assert json.loads(attr.tool_value(value)) == {
        "hits": [{"path": "a.py"}, {"path": "b.py", "lineNo": 3}],
        "message": json.loads(result.model_dump_json()),
        "other": "<opaque>",
    }


@pytest.mark.parametrize(
    ("base_url", "server"),
    [
        ("https://api.example.com/v1", {"server.address": "api.example.com", "server.port": 443}),
        ("http://10.0.0.5/v1", {"server.address": "10.0.0.5", "server.port": 80}),
        ("http://localhost:11434/v1", {"server.address": "localhost", "server.port": 11434}),
        ("https://[::1]:8443", {"server.address": "::1", "server.port": 8443}),
        ("unix://sock/v1", {"server.address": "sock"}),  # no default port for the scheme
        ("", {}),
        ("/relative/path", {}),
    ],
)
def test_server_address_and_port_come_from_the_base_url(
    base_url: str, server: dict[str, Any]
) -> None:
    model = Model(id="m-1", api="openai-completions", provider="openai", base_url=base_url)
    attributes = dict(attr.model_attributes(model))
    assert {k: v for k, v in attributes.items() if k.startswith("server.")} == server
    assert attributes["gen_ai.request.model"] == "m-1"


def test_input_tokens_count_every_cached_part_and_each_part_stands_alone() -> None:
    from pi_sdk import Usage

    usage = Usage(input=7, output=5, cache_read=300, cache_write=40)
    assert attr.usage_attributes(usage) == {
        "gen_ai.usage.input_tokens": 347,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.usage.cache_read.input_tokens": 300,
        "gen_ai.usage.cache_creation.input_tokens": 40,
    }


@pytest.mark.parametrize(("provider", "name"), [*attr.PROVIDER_NAMES.items(), ("ollama", "ollama")])
def test_provider_ids_map_to_the_well_known_names_and_others_pass(provider: str, name: str):
    assert attr.provider_name(provider) == name
    model = Model(id="m", api="a", provider=provider)
    assert attr.model_attributes(model)["gen_ai.provider.name"] == name


def test_a_conversation_is_the_input_schema_with_the_leading_prompt_left_out() -> None:
    from pi_sdk import Context, SystemMessage, ToolResultMessage, UserMessage

    context = Context(
        messages=[
            SystemMessage(content="Be brief."),
            UserMessage(
                content=[TextContent(text="a"), ImageContent(data="eA==", mime_type="image/gif")]
            ),
            ToolResultMessage(
                tool_call_id="c9",
                tool_name="t",
                content=[
                    TextContent(text="x"),
                    ImageContent(data="eA==", mime_type="image/png"),
                    TextContent(text="y"),
                ],
            ),
        ]
    )
    assert json.loads(attr.input_messages(context)) == [
        {
            "role": "user",
            "parts": [
                {"type": "text", "content": "a"},
                {"type": "image", "modality": "image", "mime_type": "image/gif"},
            ],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c9", "response": "xy"}]},
    ]
    assert json.loads(attr.system_instructions("Sé brief")) == [
        {"type": "text", "content": "Sé brief"}
    ]
    assert "é" in attr.system_instructions("é")
