"""``repr()`` of the options and the model: credentials masked, everything else shown (issue 34).

:class:`pi_sdk.StreamOptions` shows every field that is set, the API key as ``***`` and each
header's name with ``***`` for its value; unset fields (``None``) and empty provider options are
left out. :class:`pi_sdk.Model` masks its header values the same way.
"""

from __future__ import annotations

from pi_sdk import Model, StreamOptions

KEY = "opaque-key-0123456789"
HEADER = "opaque-header-9876543210"


def test_stream_options_repr_masks_the_key_and_header_values_and_skips_unset_fields() -> None:
    options = StreamOptions(
        api_key=KEY, headers={"x-gw": HEADER, "accept": "a/b"}, max_tokens=0, temperature=0.5
    )
    text = repr(options)
    assert text.startswith("StreamOptions(") and text.endswith(")")
    assert "api_key='***'" in text
    assert "headers={'x-gw': '***', 'accept': '***'}" in text
    assert "max_tokens=0" in text and "temperature=0.5" in text  # set, even when falsy
    assert KEY not in text and HEADER not in text and "a/b" not in text
    assert "signal=" not in text and "provider_options" not in text


def test_an_empty_stream_options_repr_and_provider_options_when_set() -> None:
    assert repr(StreamOptions(provider_options={})) == repr(StreamOptions())
    assert "provider_options" not in repr(StreamOptions(provider_options={}))
    shown = repr(StreamOptions(provider_options={"seed": 3}))
    assert "provider_options={'seed': 3}" in shown


def test_model_repr_masks_header_values_only() -> None:
    model = Model(id="m", api="a", provider="p", headers={"x-gw": HEADER})
    text = repr(model)
    assert "'x-gw': '***'" in text and HEADER not in text
    assert "id='m'" in text
    assert "headers=None" in repr(Model(id="m", api="a", provider="p"))
