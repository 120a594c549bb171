"""The peer libraries of ``benchmarks/run.py``: pydantic-ai and LiteLLM (``bench`` group).

* ``pydantic-ai``: ``pydantic_ai.direct.model_request_stream`` with the model class of each API
  (``OpenAIChatModel``, ``OpenAIResponsesModel``, ``AnthropicModel``, ``GoogleModel``,
  ``MistralModel``, ``BedrockConverseModel``; Azure through ``AzureProvider``), every event
  iterated, text and arguments read from the final ``ModelResponse``;
* ``litellm``: ``litellm.acompletion(stream=True)`` (OpenAI-shaped chunks for every vendor) or,
  for the Responses API, ``litellm.aresponses(stream=True)``, fragments accumulated by hand.

A factory returns ``None`` when the library is not installed (the table shows ``-``).
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from _consumers import AWS, AZURE_VERSION, PROMPT, TOOL_SCHEMA, Calls, Run
from _sdk_consumers import CHAT_TOOLS, MESSAGES, completions_chunks, openai_client
from _wire_bodies import MODELS
from _workloads import Output


def _pydantic_model(api: str, url: str) -> Any:
    if api in ("chat", "responses", "azure"):
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        provider = OpenAIProvider(openai_client=openai_client(api, url))
        kind = OpenAIResponsesModel if api == "responses" else OpenAIChatModel
        return kind(MODELS[api], provider=provider)
    if api == "messages":
        import anthropic
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        client = anthropic.AsyncAnthropic(base_url=url, api_key="bench-key", max_retries=0)
        return AnthropicModel(MODELS[api], provider=AnthropicProvider(anthropic_client=client))
    if api == "gemini":
        from google import genai
        from google.genai import types
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        options = types.HttpOptions(base_url=url, retry_options=types.HttpRetryOptions(attempts=1))
        client = genai.Client(api_key="bench-key", http_options=options)
        return GoogleModel(MODELS[api], provider=GoogleProvider(client=client))
    if api == "mistral":
        from mistralai.client import Mistral
        from pydantic_ai.models.mistral import MistralModel
        from pydantic_ai.providers.mistral import MistralProvider

        client = Mistral(api_key="bench-key", server_url=url)
        return MistralModel(MODELS[api], provider=MistralProvider(mistral_client=client))
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    provider = BedrockProvider(
        region_name=AWS["AWS_REGION"],
        aws_access_key_id=AWS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=AWS["AWS_SECRET_ACCESS_KEY"],
        base_url=url,
    )
    return BedrockConverseModel(MODELS[api], provider=provider)


def pydantic_ai_consumer(api: str, url: str) -> Run | None:
    try:
        from pydantic_ai import ModelRequest
        from pydantic_ai.direct import model_request_stream
        from pydantic_ai.models import ModelRequestParameters
        from pydantic_ai.tools import ToolDefinition
    except ImportError:
        return None
    model = _pydantic_model(api, url)
    tool = ToolDefinition(name="write", parameters_json_schema=TOOL_SCHEMA)
    parameters = ModelRequestParameters(function_tools=[tool])

    async def run() -> Output:
        messages: Any = [ModelRequest.user_text_prompt(PROMPT)]
        async with model_request_stream(
            model, messages, model_request_parameters=parameters
        ) as stream:
            async for _ in stream:
                pass
            response = stream.get()
        text: list[str] = []
        calls: list[tuple[str, Any]] = []
        for part in response.parts:
            if part.part_kind == "text":
                text.append(part.content)
            elif part.part_kind == "tool-call":
                calls.append((part.tool_name, part.args_as_dict()))
        return Output("".join(text), calls)

    return run


def _litellm_target(api: str, url: str) -> dict[str, Any]:
    if api == "chat":
        return {"model": f"openai/{MODELS[api]}", "api_base": f"{url}/v1"}
    if api == "azure":
        return {"model": "azure/bench", "api_base": url, "api_version": AZURE_VERSION}
    if api == "mistral":
        return {"model": f"mistral/{MODELS[api]}", "api_base": f"{url}/v1"}
    if api == "messages":
        return {"model": f"anthropic/{MODELS[api]}", "api_base": url}
    if api == "responses":
        return {"model": f"openai/{MODELS[api]}", "api_base": f"{url}/v1"}
    if api == "gemini":
        return {"model": f"gemini/{MODELS[api]}", "api_base": url}
    return {
        "model": f"bedrock/converse/{MODELS[api]}",
        "aws_bedrock_runtime_endpoint": url,
        "aws_region_name": AWS["AWS_REGION"],
        "aws_access_key_id": AWS["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": AWS["AWS_SECRET_ACCESS_KEY"],
    }


def litellm_consumer(api: str, url: str) -> Run | None:
    # LiteLLM fetches its model price map from the network at import unless told not to.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        return None
    litellm.telemetry = False
    # LiteLLM's Responses usage does not match its own model: pydantic warns on every dump.
    warnings.filterwarnings("ignore", "Pydantic serializer warnings", UserWarning)
    litellm.suppress_debug_info = True
    target = {**_litellm_target(api, url), "api_key": "bench-key"}

    async def responses() -> Output:
        tool = {"type": "function", "name": "write", "parameters": TOOL_SCHEMA}
        stream: Any = await litellm.aresponses(input=PROMPT, tools=[tool], stream=True, **target)
        calls, text = Calls(), []
        async for event in stream:
            kind = getattr(event, "type", "")
            kind = str(getattr(kind, "value", kind))  # LiteLLM's event types are enums
            if kind == "response.output_text.delta":
                text.append(event.delta)
            elif kind == "response.function_call_arguments.delta":
                calls.add(event.output_index, event.delta)
            elif kind == "response.output_item.added":
                item = event.item
                if not isinstance(item, dict):
                    item = {"type": item.type, "name": getattr(item, "name", "")}
                fields = item
                if fields["type"] == "function_call":
                    calls.open(event.output_index, fields["name"])
        return calls.output(text)

    async def chat() -> Output:
        stream: Any = await litellm.acompletion(
            messages=MESSAGES, tools=CHAT_TOOLS, stream=True, max_tokens=64000, **target
        )
        return await completions_chunks(stream)

    return responses if api == "responses" else chat
