"""Recorded Gemini / Vertex answers: what the generic conformance runner cannot check.

The runner (``test_conformance.py``) plays every recorded Gemini and Vertex interaction through
the adapter, streamed or one JSON document, against its ``expect``. For an error stop with no
HTTP error (a blocked prompt), ``expect`` only says that the text should name the reason (in
``notes``); this checks it for the recorded Vertex blocked prompt.
"""

from __future__ import annotations

import pytest
from _support.conformance import ConformanceDirMissing, conformance_dir, load_cases, run_interaction

try:
    ROOT = conformance_dir()
except ConformanceDirMissing:
    ROOT = None  # test_conformance.py reports the misconfiguration

BLOCKED = [
    case
    for case in (load_cases(ROOT, "google-vertex") if ROOT is not None else [])
    if case.name == "prompt_blocked_vertex_nonstream"
]


@pytest.mark.skipif(ROOT is None, reason="conformance folder absent")
def test_blocked_prompt_case_is_present() -> None:
    assert len(BLOCKED) == 1


@pytest.mark.parametrize("case", BLOCKED, ids=[c.id for c in BLOCKED])
async def test_blocked_prompt_names_the_block_reason(case) -> None:
    run = await run_interaction(case)
    assert run.message.stop_reason == "error" and not run.message.content
    error = run.message.error_message or ""
    assert "MODEL_ARMOR" in error and "Prompt Injection and Jailbreak" in error, error
