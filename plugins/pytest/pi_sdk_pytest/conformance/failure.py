"""The failure a conformance rule raises: an ``AssertionError`` whose message names the rule."""

from __future__ import annotations

__all__ = ["ConformanceFailure"]


class ConformanceFailure(AssertionError):
    """A provider broke one rule of the conformance kit.

    The message reads ``conformance rule '<rule>' failed for <provider> (<where>): <detail>``,
    so a test report names the rule without a traceback into the kit. An ``AssertionError``:
    pytest reports it as a failed test, not as an error in the test's set-up.
    """

    def __init__(self, rule: str, provider: str, detail: str, *, where: str = "") -> None:
        self.rule = rule
        """The rule's name, e.g. ``"event contract"`` (the kit's :data:`RULES`)."""
        self.provider = provider
        """The name of the provider under test (:attr:`ProviderUnderTest.name`)."""
        self.detail = detail
        """What went wrong, in one or a few sentences."""
        context = f" ({where})" if where else ""
        super().__init__(f"conformance rule {rule!r} failed for {provider}{context}: {detail}")
