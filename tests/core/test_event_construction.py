"""Stream events are built in one place: the provider kit's MessageBuilder.

Issue 10's rule: no module outside the kit and ``pi_sdk/events.py`` constructs an event
class. ``pi_sdk/_stream/run.py`` is the one documented exception: it is the contract's safety net
for any provider (it synthesizes ``start``, closes blocks left open and turns failures into
``error``).
Provider packages, plugins, the agent and the test doubles go through ``MessageBuilder``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pi_sdk.events

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {
    "pi_sdk/events.py",
    "pi_sdk/_stream/builder.py",
    "pi_sdk/_stream/run.py",
    # re-issues the attempts' events as one call across models (issue 28, model fallback)
    "pi_sdk/_models/fallback_stream.py",
}
EVENT_CLASSES = {
    name
    for name in pi_sdk.events.__all__
    if name.endswith("Event") and isinstance(getattr(pi_sdk.events, name), type)
}


def _constructions(path: Path, root: Path = ROOT) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (
            func.id
            if isinstance(func, ast.Name)
            else func.attr
            if isinstance(func, ast.Attribute)
            else ""
        )
        if name in EVENT_CLASSES:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {name}(...)")
    return found


def test_the_event_classes_are_known():
    assert {
        "StartEvent",
        "TextDeltaEvent",
        "ToolCallEndEvent",
        "DoneEvent",
        "ErrorEvent",
    } <= EVENT_CLASSES


def test_only_the_kit_and_the_stream_contract_construct_events():
    sources = [
        *sorted((ROOT / "pi_sdk").rglob("*.py")),
        *sorted((ROOT / "providers").glob("*/pi_sdk_*/**/*.py")),
        *sorted((ROOT / "plugins").glob("*/pi_sdk_*/**/*.py")),
    ]
    assert len(sources) > 50, "the walk found the library files"
    offenders = [
        hit
        for path in sources
        if str(path.relative_to(ROOT)) not in ALLOWED
        for hit in _constructions(path)
    ]
    assert offenders == [], "build events through MessageBuilder:\n" + "\n".join(offenders)


def test_the_check_sees_a_construction(tmp_path: Path):
    """The walk is not vacuous: a module that builds an event, by name or attribute, is reported."""
    module = tmp_path / "bad.py"
    module.write_text(
        "import pi_sdk.events as ev\n"
        "from pi_sdk.events import TextDeltaEvent\n"
        "TextDeltaEvent(0, 'x', None)\n"
        "ev.DoneEvent('stop', None)\n"
    )
    assert _constructions(module, tmp_path) == [
        "bad.py:3: TextDeltaEvent(...)",
        "bad.py:4: DoneEvent(...)",
    ]
