"""Reading a cassette (``pi_sdk/_testing/replay.py``, ``json_body.py``): the edges of what a
recorded interaction says (streamed or not, its content type however the headers hold it, a
body that is not JSON) and every refusal with its whole one-line message, vcrpy missing
included.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from pi_sdk import ConfigurationError
from pi_sdk._testing import replay
from pi_sdk._testing.json_body import json_body
from pi_sdk._testing.replay import load_cassette


def _interaction(
    uri: str = "https://api.example/v1/chat",
    body: Any = '{"model": "m"}',
    headers: Any = None,
    status: Any = 200,
) -> dict[str, Any]:
    return {
        "request": {"body": body, "headers": {}, "method": "post", "uri": uri},
        "response": {
            "status": {"code": status, "message": "OK"},
            "headers": headers if headers is not None else {},
            "body": {"string": "{}"},
        },
    }


def _cassette(tmp_path: Path, *interactions: dict[str, Any]) -> Path:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"interactions": list(interactions), "version": 1}), "utf-8")
    return path


def test_what_each_recorded_interaction_says(tmp_path: Path):
    path = _cassette(
        tmp_path,
        _interaction(body='{"stream": true}', headers={"Content-Type": "application/json"}),
        _interaction(
            uri="https://g.example/v1beta/models/x:streamGenerateContent?alt=sse", body=None
        ),
        _interaction(headers={"content-type": ["Text/Event-Stream; charset=utf-8"]}),
        _interaction(body="not json", headers={"CONTENT-TYPE": []}, status="201"),
        _interaction(body='{"stream": "yes"}', headers={"x-other": "1"}),
    )
    items = load_cassette(path)
    assert [(i.index, i.method, i.status) for i in items] == [
        (0, "POST", 200),
        (1, "POST", 200),
        (2, "POST", 200),
        (3, "POST", 200),  # a status that is not a number reads as 200
        (4, "POST", 200),
    ]
    assert [i.content_type for i in items] == [
        "application/json",
        "",
        "text/event-stream; charset=utf-8",
        "",
        "",
    ]
    assert [i.streamed for i in items] == [True, True, True, False, False]
    assert [i.body for i in items] == [
        {"stream": True},
        None,
        {"model": "m"},
        None,
        {"stream": "yes"},
    ]


def test_a_cassette_without_interactions_is_refused(tmp_path: Path):
    path = _cassette(tmp_path)
    with pytest.raises(ConfigurationError) as caught:
        load_cassette(path)
    assert str(caught.value) == f"cassette has no interactions: {path}"


def test_a_cassette_that_is_not_utf8_cannot_be_read(tmp_path: Path):
    path = tmp_path / "latin.yaml"
    raw = "interactions: []\n# caf\xe9\n".encode("latin-1")
    path.write_bytes(raw)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = str(exc)
    with pytest.raises(ConfigurationError) as caught:
        load_cassette(path)
    assert str(caught.value) == f"cannot read cassette {path}: {reason}"


def test_missing_files_and_folders_are_named(tmp_path: Path):
    with pytest.raises(ConfigurationError) as caught:
        load_cassette(tmp_path / "absent.yaml")
    assert str(caught.value) == f"cassette not found: {tmp_path / 'absent.yaml'}"
    with pytest.raises(ConfigurationError) as caught:
        load_cassette(tmp_path)
    assert str(caught.value) == f"cassette is a directory: {tmp_path}"


def test_without_vcrpy_the_message_names_the_extra(monkeypatch: pytest.MonkeyPatch):
    real = importlib.import_module

    def without(name: str, *args: Any) -> Any:
        if name.startswith("vcr"):
            top = name.partition(".")[0]  # made at run time, as the import system makes it
            raise ModuleNotFoundError(f"No module named {top!r}", name=top)
        if name == "needs_yaml":
            raise ModuleNotFoundError("No module named 'yaml'", name="yaml")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", without)
    with pytest.raises(ConfigurationError) as caught:
        load_cassette("any.yaml")
    assert str(caught.value) == (
        "replaying a cassette needs vcrpy: pip install 'pi-sdk-core[replay]'"
        " (the cli extra includes it)"
    )
    with pytest.raises(ModuleNotFoundError) as other:  # another module missing: as it is
        replay._vcr_module("needs_yaml")  # pyright: ignore[reportPrivateUsage]
    assert other.value.name == "yaml"


@pytest.mark.parametrize(
    ("body", "kept", "dropped"),
    [
        (None, None, None),
        (b"", None, None),
        ("", None, None),
        (b'{"a": 1}', {"a": 1}, {"a": 1}),
        ("[1, 2]", [1, 2], [1, 2]),
        ("not json", "not json", None),
        (b"\xff\xfe", b"\xff\xfe", None),
        (12, 12, None),  # not text at all
    ],
)
def test_a_recorded_body_read_as_json(body: Any, kept: Any, dropped: Any):
    assert json_body(body, keep_unparsed=True) == kept
    assert json_body(body, keep_unparsed=False) == dropped


def test_a_cassette_is_written_readable_and_loads_back_byte_for_byte() -> None:
    """Non-ASCII text as written (not ``\\u`` escapes), a multi-line body (SSE) as a literal
    block, one line as a plain scalar; a string a block cannot hold (trailing spaces) quoted."""
    from pi_sdk_pytest.cassette import ReadableYaml

    sse = 'data: {"text":"Zürich 東京"}\n\ndata: [DONE]\n\n'
    cassette = {"interactions": [{"body": sse, "uri": "https://é.example/v1", "odd": "a  \nb"}]}
    text = ReadableYaml.serialize(cassette)
    assert '- body: |+\n    data: {"text":"Zürich 東京"}\n\n    data: [DONE]\n' in text
    assert "uri: https://é.example/v1\n" in text
    assert 'odd: "a  \\nb"\n' in text and "\\u" not in text
    assert ReadableYaml.deserialize(text) == cassette


@pytest.mark.parametrize("name", ["c.json", "c.JSON"])
def test_a_json_cassette_is_read_as_json_whatever_its_suffix_s_case(tmp_path: Path, name: str):
    # JSON writes "😀" as the surrogate pair \ud83d\ude00; a YAML reader keeps two halves.
    path = tmp_path / name
    data = {"interactions": [_interaction(body='{"model": "😀"}')], "version": 1}
    path.write_text(json.dumps(data), "utf-8")
    (item,) = load_cassette(path)
    assert (item.index, item.method, item.status, item.body) == (0, "POST", 200, {"model": "😀"})
