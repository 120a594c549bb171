"""A provider package's providers built from its catalog (``pi_sdk/_kit/catalog_providers.py``).

What a package relies on: one provider per key of its environment table, in that order, each
with its variables, its display name and the package's APIs; each provider's catalog is its own
slice of ``models.json``, read on first use and once per package (a later change to the file is
not seen, and providers of one package share the one read); ``provider(...)`` picks one by id
(the default when none is given) and configures it, or names every id it has.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_sdk import ProviderNotFoundError
from pi_sdk._kit import catalog_providers
from pi_sdk._kit.catalog_providers import package_providers, provider_factory
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.provider import ProviderAuth

ROWS = [
    {"id": "a-1", "api": "acme-api", "provider": "acme"},
    {"id": "z-1", "api": "acme-api", "provider": "zeta"},
    {"id": "a-2", "api": "acme-api", "provider": "acme"},
]


async def _never(*args: object) -> None:
    raise AssertionError("not called")


API = ApiProvider(api="acme-api", call=_never)  # type: ignore[arg-type]


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A new package name per test: a catalog read once is never another test's."""
    name = f"pi_sdk_test_catalog_{uuid.uuid4().hex}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / name / "models.json").write_text(json.dumps({"models": ROWS}))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_one_provider_per_env_key_in_order_with_its_variables_name_slice_and_apis(package: str):
    env = {"zeta": ("ZETA_KEY",), "acme": ("ACME_TOKEN", "ACME_KEY")}
    zeta, acme = package_providers(package, apis=[API], env=env, names={"acme": "Acme Inc."})
    assert (zeta.id, zeta.name, zeta.display_name, zeta.auth) == (
        "zeta",
        "",
        "zeta",
        ProviderAuth(env=("ZETA_KEY",)),
    )
    assert (acme.id, acme.name, acme.auth) == (
        "acme",
        "Acme Inc.",
        ProviderAuth(env=("ACME_TOKEN", "ACME_KEY")),
    )
    assert zeta.apis == (API,) and acme.apis == (API,)
    assert [m.id for m in acme.catalog()] == ["a-1", "a-2"]
    assert [m.id for m in zeta.catalog()] == ["z-1"]
    assert package_providers(package, apis=[API], env={}) == ()


def test_the_catalog_is_read_once_per_package_however_many_providers_and_reads(
    package: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    reads: list[str] = []
    original = catalog_providers.load_models_json

    def counted(name: str) -> list[object]:
        reads.append(name)
        return original(name)  # type: ignore[return-value]

    monkeypatch.setattr(catalog_providers, "load_models_json", counted)
    acme, zeta = package_providers(package, apis=[API], env={"acme": (), "zeta": ()})
    assert reads == []  # nothing read before the first use
    first = acme.catalog()
    (tmp_path / package / "models.json").write_text(json.dumps({"models": ROWS[:1]}))  # unseen
    assert acme.catalog() == first and [m.id for m in first] == ["a-1", "a-2"]
    assert [m.id for m in zeta.catalog()] == ["z-1"]
    assert reads == [package]
    assert acme.catalog()[0] is first[0]  # the same models, not a second read's


def test_provider_gives_the_default_or_the_named_one_configured(package: str):
    providers = package_providers(package, apis=[API], env={"acme": ("A",), "zeta": ("Z",)})
    provider = provider_factory(providers, "acme")
    assert provider() == providers[0]
    assert provider("zeta") == providers[1]
    configured = provider("zeta", api_key="k", base_url="https://z.test", headers={"h": "v"})
    assert (configured.id, configured.auth, configured.base_url, configured.headers) == (
        "zeta",
        ProviderAuth(env=("Z",), api_key="k"),
        "https://z.test",
        {"h": "v"},
    )
    with pytest.raises(ProviderNotFoundError) as raised:
        provider("nope")
    assert str(raised.value) == "no provider 'nope' here (providers: acme, zeta)"
    assert provider.__doc__ == (
        "One of this package's providers (``acme``, ``zeta``; default ``acme``), configured"
        " with a key, base URL or headers of its own (``None`` keeps the catalog's), for a"
        " :class:`pi_sdk.Models` collection.\n\nRaises:\n    ProviderNotFoundError: not one of"
        " them."
    )
