"""The sampling callback on its own: MCP sampling requests in, pi-sdk model calls out."""

from __future__ import annotations

import mcp.types as mcp
from pi_sdk_mcp._sampling import Sampler

from pi_sdk import ImageContent, Model, TextContent
from pi_sdk.testing import ScriptedProvider, ScriptedReply

PNG = "iVBORw0KGgo="


def request(*messages: mcp.SamplingMessage, **fields: object) -> mcp.CreateMessageRequestParams:
    return mcp.CreateMessageRequestParams(messages=list(messages), max_tokens=50, **fields)  # type: ignore[arg-type]


async def test_a_conversation_with_images_is_sent_and_a_cut_reply_says_max_tokens():
    provider = ScriptedProvider([ScriptedReply.text("A red dot", stop_reason="length")])
    sampler = Sampler("edge", provider.model)
    answer = await sampler(
        None,  # type: ignore[arg-type]  # the SDK's request context: not used
        request(
            mcp.SamplingMessage(
                role="user",
                content=[
                    mcp.TextContent(text="What is this?"),
                    mcp.ImageContent(data=PNG, mime_type="image/png"),
                ],
            ),
            mcp.SamplingMessage(role="assistant", content=mcp.TextContent(text="A picture.")),
            mcp.SamplingMessage(role="user", content=mcp.TextContent(text="Of what?")),
            system_prompt="Be brief.",
            temperature=0.2,
        ),  # fmt: skip
    )
    assert isinstance(answer, mcp.CreateMessageResult)
    assert answer.content == mcp.TextContent(text="A red dot") and answer.stop_reason == "maxTokens"
    assert answer.model == f"scripted/{provider.model.id}"
    [call] = provider.calls
    assert call.context.system_prompt == "Be brief."
    assert call.options.max_tokens == 50 and call.options.temperature == 0.2
    first, second, third = call.context.messages
    assert first.content == [
        TextContent(text="What is this?"),
        ImageContent(data=PNG, mime_type="image/png"),
    ]  # type: ignore[union-attr]
    assert second.role == "assistant" and second.text == "A picture."  # type: ignore[union-attr]
    assert third.role == "user"


async def test_what_this_client_cannot_serve_is_refused_with_a_reason():
    provider = ScriptedProvider([])
    sampler = Sampler("edge", provider.model)
    audio = mcp.SamplingMessage(
        role="user", content=mcp.AudioContent(data="AAAA", mime_type="audio/wav")
    )
    refused = await sampler(None, request(audio))  # type: ignore[arg-type]
    assert isinstance(refused, mcp.ErrorData) and refused.code == mcp.INVALID_REQUEST
    assert refused.message == "audio content in sampling messages is not supported"
    hello = mcp.SamplingMessage(role="user", content=mcp.TextContent(text="hi"))
    tool = mcp.Tool(name="t", input_schema={"type": "object"})
    with_tools = await sampler(None, request(hello, tools=[tool]))  # type: ignore[arg-type]
    assert isinstance(with_tools, mcp.ErrorData) and "tools in sampling" in with_tools.message
    assert provider.calls == []


async def test_a_failed_call_is_an_error_naming_the_model():
    failing = ScriptedProvider([ScriptedReply.failure("overloaded")])
    hello = mcp.SamplingMessage(role="user", content=mcp.TextContent(text="hi"))
    failed = await Sampler("edge", failing.model)(None, request(hello))  # type: ignore[arg-type]
    assert isinstance(failed, mcp.ErrorData) and failed.code == mcp.INTERNAL_ERROR
    assert failed.message == f"sampling with scripted/{failing.model.id} failed: overloaded"
    nowhere = Model(id="m", name="m", api="no-such-api", provider="p")
    missing = await Sampler("edge", nowhere)(None, request(hello))  # type: ignore[arg-type]
    assert isinstance(missing, mcp.ErrorData) and missing.message.startswith(
        "sampling with p/m failed"
    )


async def test_the_options_template_stands_where_the_request_says_nothing():
    from pi_sdk import StreamOptions

    provider = ScriptedProvider([ScriptedReply.text("Done.")])
    template = StreamOptions(temperature=0.7, max_tokens=9, max_retries=4)
    sampler = Sampler("edge", provider.model, template)
    hello = mcp.SamplingMessage(
        role="assistant",
        content=[mcp.TextContent(text="seen"), mcp.ImageContent(data=PNG, mime_type="image/png")],
    )
    answer = await sampler(None, request(hello, system_prompt=""))  # type: ignore[arg-type]
    assert isinstance(answer, mcp.CreateMessageResult) and answer.stop_reason == "endTurn"
    [call] = provider.calls
    assert (call.options.temperature, call.options.max_tokens, call.options.max_retries) == (
        0.7,
        50,
        4,
    )
    assert call.context.system_prompt is None
    [message] = call.context.messages
    assert message.content == [TextContent(text="seen")]  # an assistant turn keeps its text
    assert template.max_tokens == 9  # the template itself is not changed


async def test_an_aborted_reply_without_a_message_says_aborted_and_a_key_never_leaks():
    from pi_sdk import StreamOptions

    aborted = ScriptedProvider([ScriptedReply.until_aborted([])])
    hello = mcp.SamplingMessage(role="user", content=mcp.TextContent(text="hi"))
    from pi_sdk import AbortController

    controller = AbortController()
    controller.abort()
    sampler = Sampler("edge", aborted.model, StreamOptions(signal=controller.signal))
    answer = await sampler(None, request(hello))  # type: ignore[arg-type]
    assert isinstance(answer, mcp.ErrorData) and answer.code == mcp.INTERNAL_ERROR
    assert answer.message.startswith(f"sampling with scripted/{aborted.model.id} failed: ")

    key = "zz-key-0123456789abcdef"
    nowhere = Model(id="m", name="m", api=f"api-{key}", provider="p")
    failed = await Sampler("edge", nowhere, StreamOptions(api_key=key))(None, request(hello))  # type: ignore[arg-type]
    assert isinstance(failed, mcp.ErrorData) and key not in failed.message
