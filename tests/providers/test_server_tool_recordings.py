"""The server-tool recordings the per-API tests replay (``../shared/conformance-next``).

Each API's ``servertool_*`` files hold at least so many recordings (files), so that a folder
missing some of them fails here instead of leaving those tests with fewer cases. Bedrock's one
recording is checked by ``tests/providers/bedrock/test_bedrock_server_tools.py``.
"""

from __future__ import annotations

import pytest
from _support.conformance import next_cases, skip_without_next


@pytest.mark.parametrize(
    ("api", "recordings"),
    [("anthropic-messages", 7), ("google-generative-ai", 5), ("openai-responses", 5)],
)
def test_the_recordings_are_there(api: str, recordings: int):
    cases = next_cases(api, "servertool_")
    skip_without_next(cases)
    assert len({c.name for c in cases}) >= recordings
