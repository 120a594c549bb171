"""The activity settings' documented defaults are the code's, and reach Temporal (issue 34).

``docs/temporal.md`` tabulates ``ActivitySettings`` with each default; a fresh sample of issue
34 (seed 20261205) changed ``retry_initial_interval_s`` unnoticed. Here the table is read and
compared with the dataclass, and the defaults are followed into the ``RetryPolicy`` the
workflow gives every activity.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta
from pathlib import Path

from pi_sdk_temporal import ActivitySettings
from pi_sdk_temporal._workflow import _retry  # pyright: ignore[reportPrivateUsage]

DOC = Path(__file__).parents[2] / "docs" / "temporal.md"
ROW = re.compile(r"^\| `(\w+)` \| ([0-9.]+) \|", re.MULTILINE)


def test_the_documented_defaults_are_the_code_defaults() -> None:
    documented = {name: float(value) for name, value in ROW.findall(DOC.read_text("utf-8"))}
    defaults = {f.name: f.default for f in dataclasses.fields(ActivitySettings)}
    assert set(documented) == set(defaults)
    assert documented == defaults


def test_the_retry_policy_follows_the_settings() -> None:
    policy = _retry(ActivitySettings())
    assert policy.initial_interval == timedelta(seconds=1)
    assert policy.backoff_coefficient == 2.0
    assert policy.maximum_attempts == 5
    assert list(policy.non_retryable_error_types or []) == ["RegistryError"]
    chosen = _retry(ActivitySettings(retry_initial_interval_s=0.25, max_attempts=2))
    assert (chosen.initial_interval, chosen.maximum_attempts) == (timedelta(seconds=0.25), 2)
