"""The stream layer's records (``pi_sdk/_stream/contract.py``, ``provider.py``, ``sse.py``): what
a provider author relies on when making and passing them around.

Each is frozen (a plan or a provider handed to the core cannot be changed under it) and takes
its fields by name only; the plan and an SSE event carry no per-instance ``__dict__`` (slots:
one is made per call or per event). Keys are left out of reprs.
"""

from __future__ import annotations

import dataclasses
from contextlib import nullcontext
from typing import Any

import pytest

from pi_sdk._stream.contract import ApiProvider, HttpCall
from pi_sdk._stream.provider import FetchContext, FetchedModels, Provider, ProviderAuth
from pi_sdk._stream.sse import ServerSentEvent


async def _call(model: Any, context: Any, options: Any) -> Any:
    raise NotImplementedError  # pragma: no cover


def _plan() -> HttpCall[Any]:
    return HttpCall(
        lease=nullcontext(None),
        build_payload=lambda origin: {},
        send=lambda client, payload: None,  # type: ignore[arg-type,return-value]
        decoder=lambda builder: None,  # type: ignore[arg-type,return-value]
    )


PROVIDER = Provider(id="p")
RECORDS: list[tuple[Any, str, tuple[Any, ...]]] = [
    (_plan(), "stream_kind", (nullcontext(None),)),
    (ApiProvider(api="a", call=_call), "api", ("a", None, _call)),
    (ProviderAuth(api_key="k"), "api_key", ("k",)),
    (FetchContext(provider=PROVIDER), "etag", (PROVIDER,)),
    (FetchedModels(models=None), "models", (None,)),
    (PROVIDER, "id", ("p",)),
]


@pytest.mark.parametrize(
    ("record", "field", "positional"), RECORDS, ids=[type(r[0]).__name__ for r in RECORDS]
)
def test_a_record_is_frozen_and_takes_its_fields_by_name(
    record: Any, field: str, positional: tuple[Any, ...]
) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, field, None)
    with pytest.raises(TypeError):
        type(record)(*positional)


def test_a_plan_and_an_event_carry_no_instance_dict() -> None:
    event = ServerSentEvent("message", "{}")
    with pytest.raises(AttributeError):
        event.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(_plan(), "__dict__")
    event.data = "[DONE]"  # an event is a plain mutable record
    assert (event.event, event.data) == ("message", "[DONE]")


def test_defaults_a_provider_author_reads() -> None:
    context = FetchContext(provider=PROVIDER)
    assert context.timeout_s == 10.0  # the whole fetch's budget, in seconds
    assert (context.api_key, context.etag, context.last_modified, context.signal) == (
        None,
        None,
        None,
        None,
    )
    plan = _plan()
    assert (plan.start_on_content, plan.stream_kind, plan.resend_reason) == (
        False,
        "an event stream",
        "request_refused",
    )
    assert ApiProvider(api="a", call=_call).exclusive is False


def test_keys_stay_out_of_reprs() -> None:
    secret = "sk-test-records-0042"
    assert secret not in repr(ProviderAuth(api_key=secret, get_api_key=lambda: secret))
    assert secret not in repr(FetchContext(provider=PROVIDER, api_key=secret))


def test_a_providers_headers_and_lister_stay_out_of_its_repr() -> None:
    secret = "Bearer sk-test-records-0043"

    async def lister(context: FetchContext) -> FetchedModels:
        raise NotImplementedError  # pragma: no cover

    provider = Provider(id="gw", headers={"Authorization": secret}, fetch_models=lister)
    assert secret not in repr(provider) and "lister" not in repr(provider)
    assert "id='gw'" in repr(provider)


def test_a_providers_apis_are_kept_as_a_tuple_of_implementations() -> None:
    one = ApiProvider(api="a", call=_call)
    two = ApiProvider(api="b", call=_call)
    assert Provider(id="p", apis=one).apis == (one,)  # type: ignore[arg-type]
    assert Provider(id="p", apis=(one, two)).api("b") is two
    assert Provider(id="p", apis=(one,)).api("b") is None
    with pytest.raises(
        TypeError, match=r"^Provider\('p'\)\.apis takes ApiProvider objects, got str$"
    ):
        Provider(id="p", apis=("a",))  # type: ignore[arg-type]
    for bad in ("", None):
        with pytest.raises(ValueError, match="^Provider.id must be a non-empty string$"):
            Provider(id=bad)  # type: ignore[arg-type]
