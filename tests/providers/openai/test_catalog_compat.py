"""Every catalog Chat Completions model's compat flags are accepted (pi-ai 1.6.0's catalog).

748 catalog models speak Chat Completions and carry a ``compat`` object. pi-sdk reads the 0.73.1
flags; the generator leaves out the 1.6 flags for system messages and tool changes mid-way
(``UNREAD_COMPAT`` in scripts/generate_models.py, issue 27 items 1 and 3). The 20 models of the
new providers whose thinking format pi-sdk does not speak yet (``thinkingFormat`` ``together``,
``baseten``, ``ant-ling``; Baseten's ``chatTemplateArgs``) fail with a ConfigurationError naming
it until issue 27 item 3 reads them: strict xfails, so that day they must be turned into passes.
"""

from __future__ import annotations

import pytest
from pi_sdk_openai.completions._compat import resolve_compat

from pi_sdk.errors import ConfigurationError
from pi_sdk.provider import load_models_json

CATALOG = [*load_models_json("pi_sdk_openai"), *load_models_json("pi_sdk_azure")]
MODELS = [m for m in CATALOG if m.api == "openai-completions" and m.compat]
PENDING_FORMATS = {"together", "baseten", "ant-ling"}  # pi-ai 1.6 thinking formats (item 3)
PENDING = pytest.mark.xfail(
    raises=ConfigurationError,
    strict=True,
    reason="pi-ai 1.6 thinking format pi-sdk does not speak yet (issue 27, item 3)",
)


def _case(model):  # noqa: ANN001, ANN202 - a pytest param
    pending = (model.compat or {}).get("thinkingFormat") in PENDING_FORMATS
    return pytest.param(
        model, id=f"{model.provider}/{model.id}", marks=[PENDING] if pending else []
    )


def test_the_catalog_has_them_all() -> None:
    assert len([m for m in CATALOG if m.api == "openai-completions"]) == 748
    pending = [m for m in MODELS if m.compat and m.compat.get("thinkingFormat") in PENDING_FORMATS]
    assert len(pending) == 20 and {m.provider for m in pending} == PENDING_FORMATS


@pytest.mark.parametrize("model", [_case(m) for m in MODELS])
def test_the_catalog_compat_resolves(model) -> None:  # noqa: ANN001
    resolve_compat(model)  # raises ConfigurationError on an unknown flag or a bad value
