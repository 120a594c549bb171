"""The conformance kit: the test suite a provider package runs against its own provider.

A provider author declares the provider (:class:`~pi_sdk_pytest.ProviderUnderTest`: a model
pointed at a base URL, a few recorded response bodies of the vendor, where the key is read) and
subclasses :class:`~pi_sdk_pytest.ProviderConformance`; every rule of :data:`RULES` is then a
test. The kit serves the bodies from its own HTTP server on 127.0.0.1
(:mod:`~pi_sdk_pytest.conformance.loopback`), calls the provider through :func:`pi_sdk.stream`
as users do, and measures connections from the server's side: no network beyond loopback, no
timing assertion. Guide: ``docs/plugins/conformance-kit.md``.
"""

from __future__ import annotations

from pi_sdk_pytest.conformance.rules import RULES

__all__ = ["RULES"]
