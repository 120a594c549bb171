"""Where a Vertex call's project and location come from, one source at a time (issue 34).

The caller's client decides first (its ``project`` / ``location``), then the options'
``provider_options``, then ``GOOGLE_CLOUD_PROJECT`` / ``GCLOUD_PROJECT`` and
``GOOGLE_CLOUD_LOCATION``, then ``global``; a base URL naming ``/projects/<p>/locations/<l>``
overrides them all. A sample (seed 20261206) turned the client's ``or`` into ``and`` unnoticed.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pi_sdk_google.vertex._request import resolve_target

from pi_sdk import Model, StreamOptions

MODEL = Model(id="gemini-2.5-flash", api="google-vertex", provider="google-vertex")


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"):
        monkeypatch.delenv(name, raising=False)


def _client(**fields: object) -> SimpleNamespace:
    api = {"api_key": None, "project": None, "location": None, **fields}
    return SimpleNamespace(_api_client=SimpleNamespace(**api))


def test_the_callers_client_decides_first() -> None:
    options = StreamOptions(
        client=_client(project="from-client", location="europe-west4"),
        provider_options={"project": "from-options", "location": "us-east1"},
    )
    target = resolve_target(MODEL, options)
    assert (target.project, target.location) == ("from-client", "europe-west4")
    assert "/projects/from-client/locations/europe-west4/" in target.url


def test_a_client_without_them_falls_back_to_the_options_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    options = StreamOptions(client=_client(), provider_options={"project": "from-options"})
    assert (resolve_target(MODEL, options).project, resolve_target(MODEL, options).location) == (
        "from-options",
        "global",
    )
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "from-env")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "asia-east1")
    target = resolve_target(MODEL, StreamOptions(client=_client()))
    assert (target.project, target.location) == ("from-env", "asia-east1")


def test_without_a_client_the_options_come_before_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GCLOUD_PROJECT", "from-gcloud")
    assert resolve_target(MODEL, StreamOptions(api_key=None)).project == "from-gcloud"
    options = StreamOptions(provider_options={"project": "p", "location": "l"})
    assert (resolve_target(MODEL, options).project, resolve_target(MODEL, options).location) == (
        "p",
        "l",
    )
