"""pi-sdk-openai passes the conformance kit (pi-sdk-pytest): Chat Completions and Responses."""

from __future__ import annotations

from _support.kit_declarations import first_party
from pi_sdk_pytest import ProviderConformance


class TestChatCompletionsConformance(ProviderConformance):
    provider = first_party("openai-completions")


class TestResponsesConformance(ProviderConformance):
    provider = first_party("openai-responses")
