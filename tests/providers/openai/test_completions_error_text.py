"""The text of an in-stream Chat Completions ``error`` object (``error_text``).

``"<code>: <message>"``; OpenRouter's ``metadata.raw`` (the upstream provider's own error
text) on a line after it, only when it is a non-empty string; anything else as its own text.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions._finish import error_text


@pytest.mark.parametrize(
    ("error", "text"),
    [
        ({"code": 429, "message": "Rate limited"}, "429: Rate limited"),
        ({"message": "Overloaded"}, "Overloaded"),
        ({"code": 502, "message": "Upstream error", "metadata": {"raw": "gpu on fire"}},
         "502: Upstream error\ngpu on fire"),
        ({"code": 502, "message": "Upstream", "metadata": {"raw": ""}}, "502: Upstream"),
        ({"code": 502, "message": "Up", "metadata": {"raw": {"error": "x"}}}, "502: Up"),
        ({"code": 502, "message": "Upstream", "metadata": {"raw": 7}}, "502: Upstream"),
        ({"code": 502, "message": "Upstream", "metadata": "raw"}, "502: Upstream"),
        ({"code": 0}, '0: {"code": 0}'),
        ("plain text", "plain text"),
    ],
)  # fmt: skip
def test_every_error_object_shape_gives_its_text(error: Any, text: str) -> None:
    assert error_text(error) == text
