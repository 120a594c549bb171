"""The raw vendor SDK consumers of ``benchmarks/run.py``: each SDK's own stream iteration.

openai (``chat.completions.create(stream=True)``, ``responses.create(stream=True)``,
``AsyncAzureOpenAI``), anthropic (``messages.create(stream=True)``), mistralai
(``chat.stream_async``), google-genai (``aio.models.generate_content_stream``) and botocore
(``converse_stream``, synchronous: it blocks the loop, as boto3 does). Text and argument
fragments are accumulated by hand from the typed chunks, as a user of the SDK would.
"""

from __future__ import annotations

import json
from typing import Any

from _consumers import AWS, AZURE_VERSION, PROMPT, TOOL_SCHEMA, Calls, Run
from _wire_bodies import MODELS
from _workloads import Output

MESSAGES: Any = [{"role": "user", "content": PROMPT}]
CHAT_TOOLS: Any = [{"type": "function", "function": {"name": "write", "parameters": TOOL_SCHEMA}}]


async def completions_chunks(stream: Any) -> Output:
    """Text and calls from a stream of OpenAI-shaped typed chunks (openai SDK, LiteLLM)."""
    calls, text = Calls(), []
    async for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            text.append(delta.content)
        for entry in delta.tool_calls or ():
            arguments = entry.function.arguments or ""
            if not isinstance(arguments, str):  # LiteLLM may hand a parsed object
                arguments = json.dumps(arguments)
            if entry.index not in calls.names:
                calls.open(entry.index, entry.function.name or "", arguments)
            else:
                calls.add(entry.index, arguments)
    return calls.output(text)


def openai_client(api: str, url: str) -> Any:
    """An ``AsyncOpenAI`` (``AsyncAzureOpenAI`` for ``azure``) on the loopback server."""
    import openai

    if api == "azure":
        return openai.AsyncAzureOpenAI(
            base_url=f"{url}/openai/deployments/bench",
            api_version=AZURE_VERSION,
            api_key="bench-key",
            max_retries=0,
        )
    return openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="bench-key", max_retries=0)


def _openai(api: str, url: str) -> Run:
    client = openai_client(api, url)

    async def chat() -> Output:
        stream = await client.chat.completions.create(
            model=MODELS[api], messages=MESSAGES, tools=CHAT_TOOLS, stream=True
        )
        return await completions_chunks(stream)

    async def responses() -> Output:
        tool: Any = {"type": "function", "name": "write", "parameters": TOOL_SCHEMA}
        stream = await client.responses.create(
            model=MODELS[api], input=MESSAGES, tools=[tool], stream=True
        )
        calls, text = Calls(), []
        async for event in stream:
            kind = event.type
            if kind == "response.output_text.delta":
                text.append(event.delta)
            elif kind == "response.function_call_arguments.delta":
                calls.add(event.output_index, event.delta)
            elif kind == "response.output_item.added" and event.item.type == "function_call":
                calls.open(event.output_index, event.item.name)
        return calls.output(text)

    return responses if api == "responses" else chat


def _anthropic(url: str) -> Run:
    import anthropic

    client = anthropic.AsyncAnthropic(base_url=url, api_key="bench-key", max_retries=0)
    tool: Any = {"name": "write", "input_schema": TOOL_SCHEMA}

    async def run() -> Output:
        stream = await client.messages.create(
            model=MODELS["messages"], max_tokens=64000, messages=MESSAGES, tools=[tool], stream=True
        )
        calls, text = Calls(), []
        async for event in stream:
            if event.type == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    text.append(delta.text)
                elif delta.type == "input_json_delta":
                    calls.add(event.index, delta.partial_json)
            elif event.type == "content_block_start" and event.content_block.type == "tool_use":
                calls.open(event.index, event.content_block.name)
        return calls.output(text)

    return run


def _mistral(url: str) -> Run:
    from mistralai.client import Mistral

    client = Mistral(api_key="bench-key", server_url=url)

    async def run() -> Output:
        stream = await client.chat.stream_async(
            model=MODELS["mistral"], messages=MESSAGES, tools=CHAT_TOOLS
        )
        calls, text = Calls(), []
        async with stream:
            async for event in stream:
                if not event.data.choices:  # the usage chunk
                    continue
                delta = event.data.choices[0].delta
                if isinstance(delta.content, str) and delta.content:
                    text.append(delta.content)
                for entry in delta.tool_calls or ():
                    arguments = entry.function.arguments
                    if not isinstance(arguments, str):
                        arguments = json.dumps(arguments)
                    if entry.index not in calls.names:
                        calls.open(entry.index, entry.function.name, arguments)
                    else:
                        calls.add(entry.index, arguments)
        return calls.output(text)

    return run


def _gemini(url: str) -> Run:
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=url, retry_options=types.HttpRetryOptions(attempts=1))
    client = genai.Client(api_key="bench-key", http_options=options)
    declaration = types.FunctionDeclaration(name="write", parameters_json_schema=TOOL_SCHEMA)
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=[declaration])])

    async def run() -> Output:
        stream = await client.aio.models.generate_content_stream(
            model=MODELS["gemini"], contents=PROMPT, config=config
        )
        calls, text = Calls(), []
        async for response in stream:
            content = response.candidates[0].content if response.candidates else None
            for part in (content.parts if content else None) or ():
                if part.text:
                    text.append(part.text)
                elif part.function_call:
                    call = part.function_call
                    calls.open(len(calls.names), call.name or "", json.dumps(call.args))
        return calls.output(text)

    return run


def _bedrock(url: str) -> Run:
    import botocore.session

    session = botocore.session.Session()
    client: Any = session.create_client(
        "bedrock-runtime",
        region_name=AWS["AWS_REGION"],
        endpoint_url=url,
        aws_access_key_id=AWS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=AWS["AWS_SECRET_ACCESS_KEY"],
    )
    request = {
        "modelId": MODELS["bedrock"],
        "messages": [{"role": "user", "content": [{"text": PROMPT}]}],
    }

    async def run() -> Output:
        calls, text = Calls(), []
        for event in client.converse_stream(**request)["stream"]:
            if "contentBlockDelta" in event:
                data = event["contentBlockDelta"]
                delta = data["delta"]
                if "text" in delta:
                    text.append(delta["text"])
                elif "toolUse" in delta:
                    calls.add(data["contentBlockIndex"], delta["toolUse"]["input"])
            elif "contentBlockStart" in event:
                data = event["contentBlockStart"]
                calls.open(data["contentBlockIndex"], data["start"]["toolUse"]["name"])
        return calls.output(text)

    return run


def sdk_consumer(api: str, url: str) -> Run:
    if api in ("chat", "azure", "responses"):
        return _openai(api, url)
    if api == "messages":
        return _anthropic(url)
    if api == "mistral":
        return _mistral(url)
    if api == "gemini":
        return _gemini(url)
    return _bedrock(url)
