"""The conformance suite a provider package runs: subclass it, declare the provider, run pytest.

Example (``tests/test_conformance.py`` of a provider package):

```python
import pi_sdk
from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk_echo


class TestEchoConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="echo",
        model=lambda url: pi_sdk.get_model("echo", "echo-1").model_copy(
            update={"base_url": f"{url}/v1"}
        ),
        bodies=[RecordedBody.from_file("tests/bodies/hello.sse", "text/event-stream")],
        api_key_env="ECHO_API_KEY",
        plugin=pi_sdk_echo,
    )
```

Each rule is one test method (plain ``def``: it runs its calls on its own event loop, with or
without pytest-asyncio), and a failure is a :class:`ConformanceFailure` naming the rule. Skip
one with ``pytest.mark.skip`` on an override of its method, saying why.
"""

from __future__ import annotations

from typing import ClassVar

from pi_sdk_pytest.conformance.declaration import ProviderUnderTest
from pi_sdk_pytest.conformance.rules.event_contract import check_event_contract
from pi_sdk_pytest.conformance.rules.release import check_release
from pi_sdk_pytest.conformance.rules.replay import check_replay
from pi_sdk_pytest.conformance.rules.retries import check_retries
from pi_sdk_pytest.conformance.rules.secrets import check_secrets
from pi_sdk_pytest.conformance.rules.truncation import check_truncation

__all__ = ["ProviderConformance"]


class ProviderConformance:
    """The kit's rules as test methods; a subclass named ``Test...`` sets :attr:`provider`.

    The class's own name has no ``Test`` prefix, so pytest collects only the subclasses.
    """

    provider: ClassVar[ProviderUnderTest]
    """The provider under test (set by the subclass)."""

    def test_event_contract(self) -> None:
        """Rule "event contract" (module ``rules.event_contract``)."""
        check_event_contract(self.provider)

    def test_truncation_at_every_byte_ends_in_one_error(self) -> None:
        """Rule "truncation" (module ``rules.truncation``)."""
        check_truncation(self.provider)

    def test_abort_at_every_event_releases_the_connection(self) -> None:
        """Rule "abort releases the connection" (module ``rules.release``)."""
        check_release(self.provider, "abort")

    def test_aclose_at_every_event_releases_the_connection(self) -> None:
        """Rule "aclose releases the connection" (module ``rules.release``)."""
        check_release(self.provider, "aclose")

    def test_break_at_every_event_releases_the_connection(self) -> None:
        """Rule "break releases the connection" (module ``rules.release``)."""
        check_release(self.provider, "break")

    def test_retries_only_before_the_first_byte(self) -> None:
        """Rule "retries before the first byte" (module ``rules.retries``)."""
        check_retries(self.provider)

    def test_no_secret_leaks(self) -> None:
        """Rule "no secret leaks" (module ``rules.secrets``)."""
        check_secrets(self.provider)

    def test_cassette_replay(self) -> None:
        """Rule "cassette replay" (module ``rules.replay``)."""
        check_replay(self.provider)
