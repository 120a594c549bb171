"""Each wire API's request and decode modules stay small (issue 10's done-when: at most 700 lines).

A wire API is a provider subpackage holding both ``_request.py`` (context + options -> vendor
payload) and ``_decode.py`` (vendor events -> builder calls). What the kit does for every API
(blocks, events, HTTP, partial JSON) must not be written again there, and a concept of its own
(tool definitions, signatures, capabilities) gets its own module beside them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

MAX_LINES = 700
PROVIDERS = Path(__file__).resolve().parents[2] / "providers"
WIRE_APIS = sorted(path.parent for path in PROVIDERS.glob("*/pi_sdk_*/*/_decode.py"))


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_wire_api_is_found() -> None:
    names = {path.name for path in WIRE_APIS}
    assert {"messages", "completions", "responses", "converse", "conversations"} <= names


@pytest.mark.parametrize("api", WIRE_APIS, ids=lambda path: f"{path.parent.name}.{path.name}")
def test_request_plus_decode_is_at_most_700_lines(api: Path) -> None:
    total = sum(_lines(api / name) for name in ("_request.py", "_decode.py"))
    assert total <= MAX_LINES, (
        f"{api.relative_to(PROVIDERS)}: _request.py + _decode.py = {total} lines"
        f" (max {MAX_LINES}); move shared work into the kit or a concept into its own module"
    )
