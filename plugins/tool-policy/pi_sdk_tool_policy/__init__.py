"""pi-sdk-tool-policy: allow / deny / ask rules for an agent's tool calls.

Installed, this plugin implements the ``before_tool_call`` hook for every Agent in the process
with the *active policy*:

* the policy passed to :func:`configure` (``configure(None)`` switches it off again), else
* the file named by ``PI_SDK_TOOL_POLICY`` (TOML or JSON, read once on the first tool call;
  a broken file blocks every call with a reason naming the file, it never fails open), else
* nothing: every call is allowed.

The same :class:`ToolPolicy` also works without the plugin, as an Agent's own callback:
``Agent(..., before_tool_call=policy.before_tool_call)``. See :mod:`pi_sdk_tool_policy.policy`
for rule matching.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_sdk import hookimpl
from pi_sdk.plugins import EnvSetting, lazy_exports

if TYPE_CHECKING:
    from pi_sdk import AbortSignal, BeforeToolCallContext, BeforeToolCallResult

    from . import policy as policy
    from .policy import Action as Action
    from .policy import Annotation as Annotation
    from .policy import ApprovalRequest as ApprovalRequest
    from .policy import Approver as Approver
    from .policy import Decision as Decision
    from .policy import Rule as Rule
    from .policy import ToolPolicy as ToolPolicy

__all__ = [
    "POLICY_ENV",
    "active_policy",
    "before_tool_call",
    "configure",
    # the policy types (pi_sdk_tool_policy.policy.__all__)
    "Action",
    "Annotation",
    "ApprovalRequest",
    "Approver",
    "Decision",
    "Rule",
    "ToolPolicy",
]

# Plugin discovery imports this package in every pi-sdk process: the policy types (and their
# dataclasses) are imported on first use, by a name read or by the hook's first call.
_HOMES = dict.fromkeys(["policy", *__all__[4:]], f"{__name__}.policy")
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

POLICY_ENV = "PI_SDK_TOOL_POLICY"
"""Environment variable naming the policy file used when :func:`configure` was not called."""


def _read_policy_file(path: str) -> ToolPolicy | str:
    from .policy import ToolPolicy

    try:
        return ToolPolicy.from_file(path)
    except Exception as exc:  # noqa: BLE001 - kept and reported on every call
        return str(exc)


_policy: EnvSetting[ToolPolicy | str] = EnvSetting(POLICY_ENV, _read_policy_file)
"""The active policy, or why the env var's policy file could not be read (a string)."""


def configure(policy: ToolPolicy | None) -> None:
    """Set the policy the plugin enforces (``None``: none, every call allowed).

    Overrides ``PI_SDK_TOOL_POLICY`` until :func:`reset` is called.
    """
    _policy.configure(policy)


def reset() -> None:
    """Forget :func:`configure` and any policy file read; the next call reads the env again."""
    _policy.reset()


def active_policy() -> ToolPolicy | None:
    """Return the policy the hook enforces now, reading ``PI_SDK_TOOL_POLICY`` on first use.

    Raises:
        ConfigurationError: the policy file named by the environment variable is invalid (on
            every call, until :func:`reset`).
    """
    policy = _policy.get()
    if isinstance(policy, str):
        from pi_sdk import ConfigurationError

        raise ConfigurationError(policy)
    return policy


@hookimpl
async def before_tool_call(
    context: BeforeToolCallContext, signal: AbortSignal | None
) -> BeforeToolCallResult | None:
    """Apply the active policy to one tool call (the plugin's only hook).

    A policy file that cannot be read blocks the call (fail closed) with a reason naming the
    file: the plugin manager turns the raised error into a blocking result.
    """
    policy = active_policy()
    if policy is None:
        return None
    return await policy.before_tool_call(context, signal)
