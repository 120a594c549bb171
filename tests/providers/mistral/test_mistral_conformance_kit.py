"""pi-sdk-mistral passes the conformance kit (pi-sdk-pytest) on a recorded Mistral stream."""

from __future__ import annotations

from _support.kit_declarations import first_party
from pi_sdk_pytest import ProviderConformance


class TestMistralConformance(ProviderConformance):
    provider = first_party("mistral-conversations")
