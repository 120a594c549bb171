"""Tool-call policies: ordered allow / deny / ask rules matched on tool name and arguments.

A :class:`ToolPolicy` holds :class:`Rule` objects and a default action. For each tool call the
**first rule that matches** decides (firewall style; put narrow rules first); when none matches,
the default applies. A rule matches when its ``tool`` glob matches the tool name and every one
of its ``args`` patterns matches the named argument:

* an argument is named by a dotted path into the (validated) arguments, e.g. ``"command"`` or
  ``"options.mode"``; a list index is a number (``"paths.0"``); ``"*"`` means "any argument"
  (the pattern must match at least one argument value, at any depth);
* a pattern is a glob (``fnmatch``, case-sensitive, whole value) unless it starts with ``re:``
  (a Python regular expression searched anywhere in the value; anchor it with ``^``/``$``)
  or ``glob:`` (explicit glob);
* a string argument is matched as is; any other value as its compact JSON
  (``true``, ``3``, ``["a","b"]``); a missing argument never matches.

A rule may also name **annotations**: values the called tool must carry in its
``annotations`` mapping (compared for equality), e.g. ``{"destructiveHint": True}``. MCP tools
(pi-sdk-mcp) carry the four MCP hints ``readOnlyHint``, ``destructiveHint``,
``idempotentHint`` and ``openWorldHint``, with the MCP spec's defaults filled in; a tool without
an ``annotations`` mapping never matches such a rule. The tool is looked up by name in the
run's tools. Annotations are the server's hints, not guarantees: use them to ask or deny,
not to allow something you would otherwise refuse.

``ask`` rules call an async approver with an :class:`ApprovalRequest`; without one, or when the
run is aborted while waiting, the call is denied with a reason that says approval was needed.

Configuration files are TOML or JSON with the same shape (see :meth:`ToolPolicy.from_dict`).
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast, get_args

from pi_sdk import ConfigurationError

if TYPE_CHECKING:
    from pi_sdk import AbortSignal, BeforeToolCallContext, BeforeToolCallResult

__all__ = [
    "Action",
    "Annotation",
    "ApprovalRequest",
    "Approver",
    "Decision",
    "Rule",
    "ToolPolicy",
]

Action: TypeAlias = Literal["allow", "deny", "ask"]
"""What a rule does with a call it matches."""

Annotation: TypeAlias = bool | str | int | float
"""A value a rule expects in a tool's ``annotations``."""

_ACTIONS: tuple[str, ...] = get_args(Action)
_ANY_ARGUMENT = "*"


@dataclass(frozen=True, slots=True)
class _Pattern:
    source: str
    regex: re.Pattern[str] | None
    glob: str | None

    @classmethod
    def parse(cls, source: str) -> _Pattern:
        if source.startswith("re:"):
            try:
                return cls(source, re.compile(source[3:]), None)
            except re.error as exc:
                raise ConfigurationError(f"invalid regular expression {source!r}: {exc}") from None
        return cls(source, None, source.removeprefix("glob:"))

    def matches(self, value: str) -> bool:
        if self.regex is not None:
            return self.regex.search(value) is not None
        assert self.glob is not None
        return fnmatch.fnmatchcase(value, self.glob)


@dataclass(frozen=True, kw_only=True)
class Rule:
    r"""One policy rule.

    Example:
        ```python
        Rule(action="deny", tool="bash", args={"command": r"re:\brm\s+-rf\b"},
             reason="recursive deletes are not allowed")
        ```
    """

    action: Action
    """``allow``, ``deny`` or ``ask``."""
    tool: str = "*"
    """Glob on the tool name (``"*"``: every tool; ``"write_*"``; ``"re:^(bash|sh)$"``)."""
    args: Mapping[str, str] = field(default_factory=dict[str, str])
    """Argument path -> pattern; all must match (see the module docs)."""
    annotations: Mapping[str, Annotation] = field(default_factory=dict[str, Annotation])
    """Annotation name -> the value the tool must carry; all must match (see the module docs)."""
    reason: str | None = None
    """Shown to the model when the rule denies, and to the approver when it asks."""
    _tool_pattern: _Pattern = field(init=False, repr=False, compare=False)
    _arg_patterns: tuple[tuple[str, _Pattern], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Validate the action and compile the patterns.

        Raises:
            ConfigurationError: unknown action or invalid regular expression.
        """
        if self.action not in _ACTIONS:
            raise ConfigurationError(
                f"unknown rule action {self.action!r} (expected one of {', '.join(_ACTIONS)})"
            )
        object.__setattr__(self, "_tool_pattern", _Pattern.parse(self.tool))
        compiled = tuple((path, _Pattern.parse(p)) for path, p in self.args.items())
        object.__setattr__(self, "_arg_patterns", compiled)

    def matches(
        self,
        tool_name: str,
        args: Mapping[str, Any],
        annotations: Mapping[str, Any] | None = None,
    ) -> bool:
        """Return whether this rule applies to a call of ``tool_name`` with ``args``.

        ``annotations`` are the called tool's (``None``: it has none).
        """
        if not self._tool_pattern.matches(tool_name):
            return False
        for name, value in self.annotations.items():
            if annotations is None or name not in annotations or annotations[name] != value:
                return False
        for path, pattern in self._arg_patterns:
            values = _all_values(args) if path == _ANY_ARGUMENT else _lookup(args, path)
            if not any(pattern.matches(_as_text(v)) for v in values):
                return False
        return True


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The outcome of :meth:`ToolPolicy.decide` for one call."""

    action: Action
    rule: Rule | None
    """The rule that matched, or ``None`` when the default applied."""
    index: int | None
    """That rule's position in the policy (0-based), or ``None``."""

    def describe(self) -> str:
        """Return a short human description, e.g. ``"rule 2 (deny bash)"`` or ``"default"``."""
        if self.rule is None:
            return "the default rule"
        return f"rule {self.index} ({self.rule.action} {self.rule.tool})"


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest:
    """What an approver is asked about."""

    tool_name: str
    tool_call_id: str
    args: Mapping[str, Any]
    """The validated arguments the tool would receive."""
    decision: Decision
    """The ``ask`` decision, with the rule that asked."""
    context: BeforeToolCallContext
    """The whole hook context (assistant message, raw tool call, agent context)."""


Approver: TypeAlias = Callable[[ApprovalRequest], Awaitable["bool | str | None"]]
"""``async approve(request) -> bool | str | None``.

Return ``True`` to run the call; ``False`` or ``None`` to deny it; a string to deny it with
that string as the reason the model reads. Contract: honour no signal yourself; the policy
stops waiting (and denies) when the run is aborted.
"""


class ToolPolicy:
    r"""Ordered rules plus a default, usable as a plugin hook or as an Agent callback.

    Example:
        ```python
        policy = ToolPolicy(
            [
                Rule(action="deny", tool="bash", args={"command": r"re:\bsudo\b"}),
                Rule(action="ask", tool="write_file", args={"path": "/etc/*"}),
                Rule(action="allow", tool="*"),
            ],
            default="deny",
            approver=ask_in_terminal,
        )
        agent = Agent(..., before_tool_call=policy.before_tool_call)
        ```
    """

    def __init__(
        self,
        rules: Sequence[Rule] = (),
        *,
        default: Action = "allow",
        approver: Approver | None = None,
    ) -> None:
        """Build a policy.

        Args:
            rules: Checked in order; the first match decides.
            default: The action when no rule matches.
            approver: Called for ``ask`` decisions; ``None`` denies them with a reason saying
                approval is needed.

        Raises:
            ConfigurationError: ``default`` is not an action.
        """
        if default not in _ACTIONS:
            raise ConfigurationError(
                f"unknown default action {default!r} (expected one of {', '.join(_ACTIONS)})"
            )
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.default: Action = default
        self.approver: Approver | None = approver

    def __repr__(self) -> str:
        return f"ToolPolicy({len(self.rules)} rules, default={self.default!r})"

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, approver: Approver | None = None) -> ToolPolicy:
        r"""Build a policy from its configuration mapping.

        Shape (TOML shown; JSON is the same structure)::

            default = "allow"            # optional: allow | deny | ask

            [[rules]]
            action = "deny"              # allow | deny | ask
            tool = "bash"                # glob or re:..., default "*"
            args = { command = 're:\brm\s+-rf\b' }     # optional; '...' is a TOML literal
            reason = "no recursive deletes"               # optional

            [[rules]]
            action = "ask"
            annotations = { destructiveHint = true }      # the tool's own hints (MCP tools)

        Raises:
            ConfigurationError: unknown keys, wrong types, unknown actions or invalid patterns;
                the message names the offending rule.
        """
        unknown = set(data) - {"default", "rules"}
        if unknown:
            raise ConfigurationError(f"unknown policy keys: {', '.join(sorted(unknown))}")
        raw_rules = data.get("rules", [])
        if not isinstance(raw_rules, list):
            raise ConfigurationError("policy 'rules' must be a list of tables/objects")
        rules: list[Rule] = []
        for index, raw in enumerate(cast(list[Any], raw_rules)):
            try:
                rules.append(_rule_from_dict(raw))
            except ConfigurationError as exc:
                raise ConfigurationError(f"policy rule {index}: {exc}") from None
        default = data.get("default", "allow")
        return cls(rules, default=default, approver=approver)

    @classmethod
    def from_file(cls, path: str | Path, *, approver: Approver | None = None) -> ToolPolicy:
        """Read a policy from a ``.toml`` or ``.json`` file (see :meth:`from_dict`).

        Raises:
            ConfigurationError: the file is missing, unreadable, not valid TOML/JSON, has
                another suffix, or does not describe a valid policy (names the file).
        """
        file = Path(path)
        suffix = file.suffix.lower()
        if suffix not in (".toml", ".json"):
            raise ConfigurationError(f"tool policy file {file} must end in .toml or .json")
        import tomllib  # for a policy file, not when the plugin is discovered

        try:
            text = file.read_text(encoding="utf-8")
            data: Any = tomllib.loads(text) if suffix == ".toml" else json.loads(text)
        except (OSError, ValueError) as exc:
            raise ConfigurationError(f"cannot read tool policy file {file}: {exc}") from None
        if not isinstance(data, dict):
            raise ConfigurationError(f"tool policy file {file} must hold a table/object")
        try:
            return cls.from_dict(cast(dict[str, Any], data), approver=approver)
        except ConfigurationError as exc:
            raise ConfigurationError(f"tool policy file {file}: {exc}") from None

    # -- deciding ------------------------------------------------------------------------------

    def decide(
        self,
        tool_name: str,
        args: Mapping[str, Any],
        annotations: Mapping[str, Any] | None = None,
    ) -> Decision:
        """Return what the policy does with a call (the first matching rule, else the default).

        ``annotations``: the called tool's, for rules that name some.
        """
        for index, rule in enumerate(self.rules):
            if rule.matches(tool_name, args, annotations):
                return Decision(action=rule.action, rule=rule, index=index)
        return Decision(action=self.default, rule=None, index=None)

    async def before_tool_call(
        self, context: BeforeToolCallContext, signal: AbortSignal | None = None
    ) -> BeforeToolCallResult | None:
        """Decide one call; the ``before_tool_call`` contract (plugin hook or Agent callback).

        Returns:
            ``None`` to let the call run, or a blocking result whose reason the model reads.
        """
        name = context.tool_call.name
        args = _arguments(context)
        decision = self.decide(name, args, _annotations(context))
        if decision.action == "allow":
            return None
        rule = decision.rule
        if decision.action == "deny":
            from pi_sdk import BeforeToolCallResult  # with the first run, not when discovered

            why = rule.reason if rule is not None and rule.reason else None
            reason = f"Tool call {name!r} denied by policy ({decision.describe()})"
            return BeforeToolCallResult(block=True, reason=f"{reason}: {why}" if why else reason)
        request = ApprovalRequest(
            tool_name=name,
            tool_call_id=context.tool_call.id,
            args=args,
            decision=decision,
            context=context,
        )
        return await self._ask(request, signal)

    async def _ask(
        self, request: ApprovalRequest, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        from pi_sdk import BeforeToolCallResult

        rule = request.decision.rule
        needs = f"Tool call {request.tool_name!r} needs approval ({request.decision.describe()})"
        if rule is not None and rule.reason:
            needs = f"{needs}: {rule.reason}"
        if self.approver is None:
            return BeforeToolCallResult(block=True, reason=f"{needs}; no approver is configured")
        answer = await _unless_aborted(self.approver(request), signal)
        if answer is _ABORTED:
            return BeforeToolCallResult(block=True, reason=f"{needs}; the run was aborted")
        if answer is True:
            return None
        if isinstance(answer, str) and answer:
            return BeforeToolCallResult(block=True, reason=answer)
        return BeforeToolCallResult(block=True, reason=f"{needs}; approval was refused")


_ABORTED: Any = object()


async def _unless_aborted(awaitable: Awaitable[Any], signal: AbortSignal | None) -> Any:
    """Await ``awaitable``; return :data:`_ABORTED` (cancelling it) if ``signal`` fires first."""
    if signal is None:
        return await awaitable
    import asyncio

    if signal.aborted:
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        return _ABORTED
    task = asyncio.ensure_future(awaitable)
    waiter = asyncio.ensure_future(signal.wait())
    try:
        # asyncio.tasks.wait is asyncio.wait, not Temporal's sandbox proxy of it (see pi_sdk's
        # Agent._execute): the hook may run inside a workflow
        done, _ = await asyncio.tasks.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task in done:
        return task.result()
    task.cancel()
    return _ABORTED


def _rule_from_dict(raw: Any) -> Rule:
    if not isinstance(raw, dict):
        raise ConfigurationError("a rule must be a table/object")
    data = cast(dict[str, Any], raw)
    unknown = set(data) - {"action", "tool", "args", "annotations", "reason"}
    if unknown:
        raise ConfigurationError(f"unknown keys {', '.join(sorted(unknown))}")
    if "action" not in data:
        raise ConfigurationError("missing 'action'")
    tool = data.get("tool", "*")
    args = data.get("args", {})
    reason = data.get("reason")
    if not isinstance(tool, str):
        raise ConfigurationError("'tool' must be a string")
    if not isinstance(args, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in cast(dict[Any, Any], args).items()
    ):
        raise ConfigurationError("'args' must map argument paths to pattern strings")
    if reason is not None and not isinstance(reason, str):
        raise ConfigurationError("'reason' must be a string")
    annotations = data.get("annotations", {})
    if not isinstance(annotations, dict) or not all(
        isinstance(k, str) and isinstance(v, bool | str | int | float)
        for k, v in cast(dict[Any, Any], annotations).items()
    ):
        raise ConfigurationError("'annotations' must map annotation names to values")
    return Rule(
        action=data["action"],
        tool=tool,
        args=cast(dict[str, str], args),
        annotations=cast(dict[str, Annotation], annotations),
        reason=reason,
    )


def _annotations(context: BeforeToolCallContext) -> Mapping[str, Any] | None:
    """The called tool's ``annotations`` mapping (MCP tools have one), or ``None``."""
    for candidate in context.context.tools:
        if candidate.name == context.tool_call.name:
            found: Any = getattr(candidate, "annotations", None)
            return cast(Mapping[str, Any], found) if isinstance(found, Mapping) else None
    return None


def _arguments(context: BeforeToolCallContext) -> Mapping[str, Any]:
    """The validated arguments as a mapping (a pydantic model is dumped; else the raw call)."""
    args: Any = context.args
    if isinstance(args, Mapping):
        return cast(Mapping[str, Any], args)
    dump = getattr(args, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, dict):
            return cast(dict[str, Any], dumped)
    return context.tool_call.arguments


def _lookup(args: Mapping[str, Any], path: str) -> list[Any]:
    node: Any = args
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = cast(Mapping[str, Any], node)[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(cast(list[Any], node)):
            node = cast(list[Any], node)[int(part)]
        else:
            return []
    return [node]


def _all_values(node: Any) -> Iterator[Any]:
    if isinstance(node, Mapping):
        for value in cast(Mapping[str, Any], node).values():
            yield from _all_values(value)
    elif isinstance(node, list):
        for value in cast(list[Any], node):
            yield from _all_values(value)
    else:
        yield node


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
