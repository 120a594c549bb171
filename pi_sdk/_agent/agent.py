"""The stateful Agent: a transcript, queues and listeners around the agent loop (pi-spec §8.6).

pi-mono ``agent.ts``. An :class:`Agent` owns its state (system prompt, model, thinking level,
tools, transcript and the runtime fields of the current run), runs the agent loop
for ``prompt()`` / ``continue_()``, queues steering and follow-up messages, and reports every
event to its listeners.

Differences from pi-mono, on purpose:

* listeners may be ``async``; each event's listeners are awaited one after the other, in
  registration order, after the state was updated for that event. A listener that raises is
  logged (logger ``pi_sdk._agent.agent``) and the run continues: a broken UI callback must not
  corrupt the transcript. Its first failure in a run is logged with the traceback, later ones in the
  same run one line each at DEBUG and counted in one WARNING line after ``agent_end``, so a
  listener failing on every delta does not flood the log;
* ``wait_for_idle()`` resolves only after every listener has finished with ``agent_end``;
* ``continue_()`` from an assistant message that ended in ``error`` or ``aborted`` retries the
  turn: the failed message stays in the transcript (nothing is lost), and the providers drop it
  from the history they send (:func:`pi_sdk.provider.transform_messages`), so the model answers the
  preceding user or tool-result message again. pi-mono raises in that state;
* cancelling the task that awaits ``prompt()`` / ``continue_()`` aborts the run and waits for
  it to wind down, so the transcript stays consistent;
* ``reset()`` during a run raises instead of racing the run.
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from pi_sdk._agent.agent_fallback import AgentFallback, check_fallback, fallback_collection
from pi_sdk._agent.listeners import (
    AgentListener,
    agent_logger,
    log_listener_failure,
    log_repeated_listener_failures,
    takes_signal,
)
from pi_sdk._agent.messages import check_agent_message, check_prompt, default_convert_to_llm
from pi_sdk._agent.queues import check_modes, dequeue
from pi_sdk._agent.state import ActiveRun, AgentState, Runtime
from pi_sdk.errors import AgentBusyError, ConfigurationError
from pi_sdk.types import (
    AssistantMessage,
    ImageContent,
    Model,
    TextContent,
    UserContent,
    UserMessage,
)

if TYPE_CHECKING:
    from pi_sdk._models.fallback import FallbackPolicy
    from pi_sdk._wire.agent_types import (
        AfterToolCall,
        AgentEvent,
        AgentMessage,
        AgentStreamFn,
        AgentThinkingLevel,
        AgentTool,
        BeforeToolCall,
        ConvertToLlm,
        GetApiKey,
        QueueMode,
        ToolExecutionMode,
        ToolSteering,
        TransformContext,
    )
    from pi_sdk._wire.loop_config import (
        AgentLoopConfig,
        FinishTurn,
        PrepareNextTurn,
        PrepareRequest,
        ShouldStopAfterTurn,
    )
    from pi_sdk._wire.retry_policy import RetryPolicy
    from pi_sdk._wire.usage_limits import UsageLimits
    from pi_sdk.options import StreamOptions, StructuredOutput

__all__ = ["Agent", "AgentListener", "AgentState"]


_PROMPT_BUSY = (
    "Agent is already processing a prompt. Use steer() or follow_up() to queue messages,"
    " or await agent.wait_for_idle() before prompting again."
)
_CONTINUE_BUSY = (
    "Agent is already processing. Await agent.wait_for_idle() before continuing,"
    " or use steer() / follow_up() to queue messages for the current run."
)
_LOOP_SETTINGS = (
    "convert_to_llm",
    "transform_context",
    "get_api_key",
    "tool_execution",
    "tool_steering",
    "tool_abort_grace_ms",
    "before_tool_call",
    "after_tool_call",
    "prepare_request",
    "prepare_next_turn",
    "finish_turn",
    "should_stop_after_turn",
    "retry",
    "usage_limits",
)
"""The Agent attributes its runs pass on as is, as the same-named :class:`AgentLoopConfig` field."""


class Agent:
    """A stateful agent: ``await agent.prompt("...")``, with tools, queues and listeners.

    Example:
        ```python
        agent = pi_sdk.Agent(model=model, system_prompt="Be brief.", tools=[get_weather])
        agent.subscribe(lambda event, signal: print(event.type))
        await agent.prompt("Weather in Paris?")
        print(agent.state.messages[-1].text)
        ```

    Every constructor argument is also a public attribute that can be changed between runs.
    """

    def __init__(
        self,
        *,
        model: Model | None = None,
        system_prompt: str = "",
        thinking_level: AgentThinkingLevel = "off",
        tools: Iterable[AgentTool] = (),
        messages: Iterable[AgentMessage] = (),
        convert_to_llm: ConvertToLlm = default_convert_to_llm,
        transform_context: TransformContext | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        tool_execution: ToolExecutionMode = "parallel",
        tool_steering: ToolSteering = "wait",
        tool_abort_grace_ms: float = 2000,
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        prepare_request: PrepareRequest | None = None,
        prepare_next_turn: PrepareNextTurn | None = None,
        finish_turn: FinishTurn | None = None,
        should_stop_after_turn: ShouldStopAfterTurn | None = None,
        retry: RetryPolicy | None = None,
        usage_limits: UsageLimits | None = None,
        fallback: AgentFallback | None = None,
        get_api_key: GetApiKey | None = None,
        stream_fn: AgentStreamFn | None = None,
        stream_options: StreamOptions | None = None,
        output: object = None,
        output_repairs: int = 0,
    ) -> None:
        """Create an agent.

        Args:
            model: The model to call (required before ``prompt()``).
            system_prompt: System prompt of every call.
            thinking_level: ``"off"`` or a reasoning level, mapped per provider.
            tools: Tools offered to the model.
            messages: An initial transcript (e.g. a loaded session).
            convert_to_llm: Transcript → LLM messages before each call (custom messages).
            transform_context: Optional pruning/injection before ``convert_to_llm``.
            steering_mode: How many queued steering messages one poll takes.
            follow_up_mode: How many queued follow-up messages one poll takes.
            tool_execution: ``"parallel"`` (default) or ``"sequential"``.
            tool_steering: A steering message during a tool batch: ``"wait"`` (default,
                pi-agent-core 0.73.1) lets every call of the batch run and goes in after it;
                ``"skip"`` gives the calls not yet run an error result (older pi-agent-core).
            tool_abort_grace_ms: After ``abort()`` (or cancelling ``prompt()``), how long a
                running tool may take to stop before it is cancelled, then left behind with a
                warning and an error result (milliseconds; default 2,000).
            before_tool_call: May block a validated tool call.
            after_tool_call: May replace a tool result's content, details, error flag.
            prepare_request: Before every model request: may replace the context, model or
                thinking level (:data:`pi_sdk.agent.PrepareRequest`; pi-agent-core 1.6).
            prepare_next_turn: Between turns: the same, plus messages to add
                (:data:`pi_sdk.agent.PrepareNextTurn`).
            finish_turn: After each turn, before its ``turn_end``: ``"end"`` ends the run,
                ``"continue"`` asks for one more request (:data:`pi_sdk.agent.FinishTurn`).
            should_stop_after_turn: Deprecated (use ``finish_turn``): true ends the run after
                that turn.
            retry: Retries of a turn that failed, after the first byte too
                (:class:`pi_sdk.agent.RetryPolicy`); ``None``: a failed turn ends the run.
            usage_limits: Limits on each run's tokens, cost, requests and tool calls
                (:class:`pi_sdk.agent.UsageLimits`; docs/fallback-limits-retries.md).
            fallback: Models to move on to when a call fails (a :class:`pi_sdk.FallbackPolicy`
                or a list of models, ``"provider/id"`` names included): every call carries it
                as ``StreamOptions.fallback`` (:mod:`pi_sdk._agent.agent_fallback`). Checked
                here, against the collection of ``stream_fn`` (``models.stream``) or the
                default one.
            get_api_key: Resolves the API key before every call (short-lived tokens).
            stream_fn: Replaces :func:`pi_sdk.stream` (proxies, tests).
            stream_options: Template for every call's options (temperature, max tokens,
                session id, ...); ``signal``, ``reasoning`` and ``api_key`` are set per call.
            output: Typed final answer (structured output): a pydantic model class, a type,
                a JSON Schema dict or a :class:`pi_sdk.options.Output`; every call asks for
                it (``StreamOptions.output``) and :attr:`final_output` reads the result.
                ``None``: the ``stream_options`` value.
            output_repairs: How many repair turns a run may add when the final answer does not
                validate (default 0: none; the failure is data on ``final_output``). Each one
                is a user message naming the problem (docs/structured-output.md).

        Raises:
            ValueError: ``output_repairs`` is negative; a mode setting is none of its names;
                ``fallback`` would try a model twice with nothing changed (``model`` included).
            TypeError: ``output`` is not a type, schema or :class:`~pi_sdk.options.Output`;
                ``fallback`` is neither a policy nor a list.
            ModelNotFoundError: a ``fallback`` name is no model of the collection (named).
        """
        from pi_sdk.options import StreamOptions  # with the first Agent, not its class (issue 32)

        if output_repairs < 0:
            raise ValueError(f"output_repairs must be 0 or more; got {output_repairs}")
        self._runtime = Runtime()
        self._state = AgentState(
            self._runtime,
            system_prompt=system_prompt,
            model=model,
            thinking_level=thinking_level,
            tools=tools,
            messages=messages,
        )
        self.convert_to_llm = convert_to_llm
        self.transform_context = transform_context
        self.steering_mode: QueueMode = steering_mode
        self.follow_up_mode: QueueMode = follow_up_mode
        self.tool_execution: ToolExecutionMode = tool_execution
        self.tool_steering: ToolSteering = tool_steering
        check_modes(self)
        self.tool_abort_grace_ms = tool_abort_grace_ms
        if should_stop_after_turn is not None:
            warnings.warn(
                "should_stop_after_turn is deprecated: use finish_turn (return 'end' to stop)",
                DeprecationWarning,
                stacklevel=2,
            )
        self.should_stop_after_turn = should_stop_after_turn
        self.prepare_request = prepare_request
        self.prepare_next_turn = prepare_next_turn
        self.finish_turn = finish_turn
        self.retry = retry
        self.usage_limits = usage_limits
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.get_api_key = get_api_key
        self.stream_fn = stream_fn
        self._fallback = check_fallback(fallback, model, stream_fn)
        self.stream_options = stream_options or StreamOptions()
        if output is not None:
            self.stream_options = dataclasses.replace(self.stream_options, output=output)
        self.output_repairs = output_repairs
        self._listeners: list[tuple[AgentListener, bool]] = []
        self._steering: list[AgentMessage] = []
        self._follow_up: list[AgentMessage] = []
        self._run: ActiveRun | None = None

    @property
    def final_output(self) -> StructuredOutput | None:
        """The typed answer of the last assistant message (``None`` without one or no ``output``).

        ``final_output.value`` is the validated object; ``error`` and ``raw`` say why not.
        """
        for message in reversed(self._state.messages):
            if isinstance(message, AssistantMessage):
                return message.output
        return None

    def __repr__(self) -> str:
        model = self._state.model.id if self._state.model else None
        count = len(self._state.messages)
        return f"Agent(model={model!r}, messages={count}, running={self.is_running})"

    # -- state -----------------------------------------------------------------------------

    @property
    def state(self) -> AgentState:
        """The live state object (read-only reference)."""
        return self._state

    @property
    def is_running(self) -> bool:
        """True while a run is active, including its ``agent_end`` listeners."""
        return self._run is not None

    @property
    def model(self) -> Model | None:
        """Shortcut for ``state.model``."""
        return self._state.model

    @model.setter
    def model(self, model: Model | None) -> None:
        self._state.model = model

    @property
    def fallback(self) -> FallbackPolicy | None:
        """The models a failing call moves on to (a list given is a policy with its defaults).

        Assigning checks it as the constructor does (``ModelNotFoundError``, ``ValueError``,
        ``TypeError``); ``None`` removes it.
        """
        return self._fallback

    @fallback.setter
    def fallback(self, value: AgentFallback | None) -> None:
        self._fallback = check_fallback(value, self._state.model, self.stream_fn)

    @property
    def system_prompt(self) -> str:
        """Shortcut for ``state.system_prompt`` (the current prompt; see its setter's rules)."""
        return self._state.system_prompt

    @system_prompt.setter
    def system_prompt(self, value: str) -> None:
        self._state.system_prompt = value

    @property
    def thinking_level(self) -> AgentThinkingLevel:
        """Shortcut for ``state.thinking_level``."""
        return self._state.thinking_level

    @thinking_level.setter
    def thinking_level(self, value: AgentThinkingLevel) -> None:
        self._state.thinking_level = value

    @property
    def tools(self) -> Sequence[AgentTool]:
        """Shortcut for ``state.tools`` (copied on assignment)."""
        return self._state.tools

    @tools.setter
    def tools(self, tools: Iterable[AgentTool]) -> None:
        """Change the tools the agent can run (announced before the next request, pi 1.6)."""
        self._state.tools = tools

    @property
    def messages(self) -> Sequence[AgentMessage]:
        """Shortcut for ``state.messages`` (copied on assignment)."""
        return self._state.messages

    @messages.setter
    def messages(self, messages: Iterable[AgentMessage]) -> None:
        self._state.messages = messages

    # -- listeners ---------------------------------------------------------------------------

    def subscribe(self, listener: AgentListener) -> Callable[[], None]:
        """Call ``listener(event, signal)`` for every event; returns an unsubscribe function.

        Listeners run in registration order, each awaited before the next, after the state
        was updated for the event; the loop waits for them (back-pressure). A listener that
        raises is skipped for that event and the run continues. It is logged on the
        ``pi_sdk._agent.agent`` logger: its first failure in a run at ERROR with the traceback,
        later failures in the same run one line each at DEBUG, and, when there were later failures,
        one WARNING line after ``agent_end`` with their count per event type and the last
        error. Nothing is emitted on subscribe.

        A listener must not await ``prompt()``, ``continue_()`` or ``wait_for_idle()`` of its
        own agent (the run is waiting for the listener): queue with ``steer()`` /
        ``follow_up()``, or start a task (``asyncio.create_task(agent.prompt(...))`` from an
        ``agent_end`` listener starts once the run is over).
        """
        entry = (listener, takes_signal(listener))
        self._listeners.append(entry)

        def unsubscribe() -> None:
            if entry in self._listeners:
                self._listeners.remove(entry)

        return unsubscribe

    async def _notify(self, event: AgentEvent, run: ActiveRun) -> None:
        signal = run.controller.signal
        for listener, with_signal in list(self._listeners):
            try:
                result = listener(event, signal) if with_signal else listener(event)
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:
                log_listener_failure(run.listener_failures, listener, event.type, exc)
        if event.type == "agent_end":
            log_repeated_listener_failures(run.listener_failures)

    # -- queues ------------------------------------------------------------------------------

    def steer(self, message: AgentMessage | str) -> None:
        """Queue a message to inject while the agent works (after the current tool calls).

        Remaining tool calls of the current assistant message are skipped with an error
        result; the message goes in before the next model call.
        """
        self._steering.append(_as_message(message, "steer"))

    def follow_up(self, message: AgentMessage | str) -> None:
        """Queue a message to send once the agent would otherwise stop."""
        self._follow_up.append(_as_message(message, "follow_up"))

    def clear_steering_queue(self) -> None:
        """Drop queued steering messages."""
        self._steering.clear()

    def clear_follow_up_queue(self) -> None:
        """Drop queued follow-up messages."""
        self._follow_up.clear()

    def clear_all_queues(self) -> None:
        """Drop every queued message."""
        self._steering.clear()
        self._follow_up.clear()

    def has_queued_messages(self) -> bool:
        """True if a steering or follow-up message is queued."""
        return bool(self._steering or self._follow_up)

    def peek_queued_messages(self) -> list[AgentMessage]:
        """The messages the next poll would take, left queued (pi-agent-core 1.6).

        Steering messages first (per ``steering_mode``: the oldest, or all), else follow-ups
        (per ``follow_up_mode``); empty when nothing is queued.
        """
        if self._steering:  # a copy: the queue is left as it is
            return dequeue(list(self._steering), self.steering_mode)
        return dequeue(list(self._follow_up), self.follow_up_mode)

    # -- control -----------------------------------------------------------------------------

    def abort(self, reason: str | None = None) -> None:
        """Abort the current run (no-op when idle): the streaming call ends ``aborted``."""
        if self._run is not None:
            self._run.controller.abort(reason)

    async def wait_for_idle(self) -> None:
        """Return once no run is active (after every listener has handled ``agent_end``)."""
        run = self._run
        if run is not None:
            import asyncio

            await asyncio.shield(run.done)

    def reset(self) -> None:
        """Clear the transcript, runtime fields, error and both queues (model and tools kept).

        The current prompt and tools (replayed through the transcript's system messages)
        become the base of the new transcript (pi-agent-core 1.6 ``reset``).

        Raises:
            AgentBusyError: a run is active (``abort()`` and ``await wait_for_idle()`` first).
        """
        if self._run is not None:
            raise AgentBusyError(
                "Cannot reset while a run is active; call abort() and await wait_for_idle() first."
            )
        # pi-agent-core 1.6 keeps the replayed prompt and tools: they become the new base.
        prompt = self._state.system_prompt
        self._state.messages = []
        self._state.system_prompt = prompt
        self._state.tools = list(self._state.tools)
        self._runtime.is_streaming = False
        self._runtime.stream_message = None
        self._runtime.pending_tool_calls = frozenset()
        self._runtime.error = None
        self.clear_all_queues()

    # -- runs --------------------------------------------------------------------------------

    def _require_model(self) -> Model:
        check_modes(self)  # before every run too: they are attributes a caller may change
        model = self._state.model
        if model is None:
            raise ConfigurationError(
                "No model configured: pass Agent(model=...) or set agent.model"
            )
        if self._fallback is not None:  # the model may have changed since: in its own list?
            self._fallback.chain(model, collection=fallback_collection(self.stream_fn))
        return model

    async def prompt(
        self,
        input: str | AgentMessage | Sequence[AgentMessage],  # noqa: A002 - pi-mono's name
        images: Sequence[ImageContent] = (),
    ) -> list[AgentMessage]:
        """Send a prompt and run until the agent stops; return the run's new messages.

        Args:
            input: Text (becomes a user message, with ``images`` appended), one message, or a
                list of messages.
            images: Images to attach to a text prompt.

        Returns:
            The new messages of the run (as in ``agent_end``). Failures do not raise: the last
            one is an assistant message with ``stop_reason`` ``"error"``/``"aborted"``.

        Raises:
            AgentBusyError: a run is active (queue with ``steer()``/``follow_up()`` instead).
            ConfigurationError: no model is set.
            ValueError: the prompt has no content: an empty or blank text without images, no
                messages, or a user message without text or images (vendors reject an empty
                request, e.g. Anthropic with HTTP 400); the model was set to one that is in
                ``fallback`` with nothing changed; or a mode setting is none of its names.
        """
        if self._run is not None:
            raise AgentBusyError(_PROMPT_BUSY)
        self._require_model()
        if isinstance(input, str):
            content: list[UserContent] = [TextContent(text=input), *images]
            messages: list[AgentMessage] = [UserMessage(content=content)]
        elif isinstance(input, Sequence) and not isinstance(input, (bytes, bytearray)):
            messages = list(input)
        else:
            messages = [cast("AgentMessage", input)]
        check_prompt(messages)
        return await self._execute(messages)

    async def continue_(self) -> list[AgentMessage]:
        """Continue from the current transcript without a new prompt.

        * Last message is a user, tool-result or custom message: call the model.
        * Last message is an assistant message: send queued steering messages, else queued
          follow-ups; with nothing queued, an assistant message that ended in ``error`` or
          ``aborted`` is retried (see the module docstring); a completed one raises.

        Raises:
            AgentBusyError: a run is active.
            ConfigurationError: no model, no messages, or nothing to continue from a completed
                assistant message.
            ValueError: a mode setting (``steering_mode``, ``tool_execution``, ...) is none
                of its names.
        """
        if self._run is not None:
            raise AgentBusyError(_CONTINUE_BUSY)
        self._require_model()
        messages = self._state.messages
        if not messages:
            raise ConfigurationError("No messages to continue from")
        last = messages[-1]
        if isinstance(last, AssistantMessage):
            steering = dequeue(self._steering, self.steering_mode)
            if steering:
                return await self._execute(steering, skip_initial_steering_poll=True)
            follow_up = dequeue(self._follow_up, self.follow_up_mode)
            if follow_up:
                return await self._execute(follow_up)
            if last.stop_reason not in ("error", "aborted"):
                raise ConfigurationError(
                    "Cannot continue from message role: assistant (the model has already"
                    " answered); call prompt() with a new message, or queue one with"
                    " steer()/follow_up() first"
                )
        return await self._execute(None)

    def prompt_sync(
        self,
        input: str | AgentMessage | Sequence[AgentMessage],  # noqa: A002 - pi-mono's name
        images: Sequence[ImageContent] = (),
    ) -> list[AgentMessage]:
        """Run :meth:`prompt` to completion from synchronous code (scripts).

        Raises:
            RuntimeError: called inside a running event loop (use ``await agent.prompt()``).
            AgentBusyError, ConfigurationError: as :meth:`prompt`.
        """
        return _run_sync("prompt_sync", "prompt", lambda: self.prompt(input, images))

    def continue_sync(self) -> list[AgentMessage]:
        """Run :meth:`continue_` to completion from synchronous code.

        Raises:
            RuntimeError: called inside a running event loop (use ``await agent.continue_()``).
        """
        return _run_sync("continue_sync", "continue_", self.continue_)

    async def _execute(
        self, messages: list[AgentMessage] | None, *, skip_initial_steering_poll: bool = False
    ) -> list[AgentMessage]:
        import asyncio

        from pi_sdk._wire.abort import AbortController

        run = ActiveRun(AbortController(), asyncio.get_running_loop().create_future())
        run.steering_polled = not skip_initial_steering_poll
        self._run = run
        self._runtime.is_streaming = True
        self._runtime.stream_message = None
        self._runtime.error = None
        task = asyncio.ensure_future(self._drive(run, messages))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            run.controller.abort("The run was cancelled")
            # asyncio.tasks.wait is asyncio.wait; imported here, `asyncio` would be Temporal's
            # sandbox proxy inside a workflow, whose wait() warns (docs/temporal.md)
            await asyncio.tasks.wait([task])
            raise

    def _config(self, run: ActiveRun, model: Model) -> AgentLoopConfig:
        from pi_sdk._agent.output_repair import repair_prompt
        from pi_sdk._wire.loop_config import AgentLoopConfig
        from pi_sdk.options import StreamOptions as Options

        def steering() -> list[AgentMessage]:
            if not run.steering_polled:
                run.steering_polled = True
                return []
            return dequeue(self._steering, self.steering_mode)

        def follow_up() -> list[AgentMessage]:
            queued = dequeue(self._follow_up, self.follow_up_mode)
            if queued or run.repairs >= self.output_repairs:
                return queued
            repair = repair_prompt(self._state.messages)
            if repair is None:
                return []
            run.repairs += 1
            return [repair]

        base = {f.name: getattr(self.stream_options, f.name) for f in dataclasses.fields(Options)}
        level = self._state.thinking_level
        base.update(reasoning=None if level == "off" else level, signal=run.controller.signal)
        base.update({name: getattr(self, name) for name in _LOOP_SETTINGS})
        if self._fallback is not None:
            base["fallback"] = self._fallback
        return AgentLoopConfig(
            **base, model=model, get_steering_messages=steering, get_follow_up_messages=follow_up
        )

    async def _drive(
        self, run: ActiveRun, messages: list[AgentMessage] | None
    ) -> list[AgentMessage]:
        from pi_sdk._agent.loop import run_agent_loop  # with the first run (issue 32, item 2)
        from pi_sdk._stream.assistant_message import new_assistant_message
        from pi_sdk._stream.log_redaction import install as install_log_redaction
        from pi_sdk._wire.agent_types import AgentContext, AgentEndEvent
        from pi_sdk._wire.redact import exception_text

        signal = run.controller.signal

        async def emit(event: AgentEvent) -> None:
            self._runtime.reduce(event)
            await self._notify(event, run)

        model = self._require_model()
        try:
            context = AgentContext(
                system_prompt=self._state.base_prompt,
                messages=list(self._state.messages),
                tools=list(self._state.tools),
                declared_tools=list(self._state.base_tools),
            )
            config = self._config(run, model)
            return await run_agent_loop(messages, context, config, emit, signal, self.stream_fn)
        except Exception as exc:  # noqa: BLE001 - the loop reports failures itself; this is the net
            install_log_redaction()  # the failure may come before any model call installed it
            agent_logger().error("agent run failed outside the loop", exc_info=exc)
            message = new_assistant_message(model)
            message.stop_reason = "aborted" if signal.aborted else "error"
            message.error_message = exception_text(exc)
            self._runtime.messages = [*self._runtime.messages, message]
            self._runtime.error = message.error_message
            self._runtime.is_streaming = False
            await self._notify(AgentEndEvent(messages=[message]), run)
            return [message]
        finally:
            self._runtime.is_streaming = False
            self._runtime.stream_message = None
            self._runtime.pending_tool_calls = frozenset()
            self._run = None
            if not run.done.done():
                run.done.set_result(None)


def _as_message(message: AgentMessage | str, caller: str) -> AgentMessage:
    if isinstance(message, str):
        return UserMessage(content=[TextContent(text=message)])
    return check_agent_message(message, caller)


def _run_sync(
    name: str, async_name: str, run: Callable[[], Coroutine[Any, Any, list[AgentMessage]]]
) -> list[AgentMessage]:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    raise RuntimeError(
        f"Agent.{name}() cannot run inside a running event loop; use `await agent.{async_name}()`"
    )
