"""Calling conventions of the marked signatures in ``pi_sdk._agent`` and ``pi_sdk.agent``.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    (
        "pi_sdk._agent.agent:Agent.__init__",
        (
            "self, *, model, system_prompt, thinking_level, tools, messages, "
            "convert_to_llm, transform_context, steering_mode, follow_up_mode, "
            "tool_execution, tool_steering, tool_abort_grace_ms, before_tool_call, "
            "after_tool_call, prepare_request, prepare_next_turn, finish_turn, "
            "should_stop_after_turn, retry, usage_limits, fallback, get_api_key, "
            "stream_fn, stream_options, output, output_repairs"
        ),
    ),
    ("pi_sdk._agent.agent:Agent._execute", "self, messages, *, skip_initial_steering_poll"),
    ("pi_sdk._agent.jsonl:read_version", "value, *, newest, name, verb"),
    ("pi_sdk._agent.messages:_Registry.put", "self, entry, *, replace, again_ok"),
    (
        "pi_sdk._agent.messages:register_message_type",
        "message_type, convert, *, replace, source_id",
    ),
    ("pi_sdk._agent.pi_session:_parse", "data, *, leaf_id, allow_truncated"),
    ("pi_sdk._agent.pi_session:import_pi_session", "path, *, leaf_id, allow_truncated"),
    ("pi_sdk._agent.pi_session:export_pi_session", "path, messages, *, base, cwd"),
    (
        "pi_sdk._agent.run_tool_call:run_tool_call",
        (
            "tool_call, *, tools, assistant_message, context, before_tool_call, "
            "after_tool_call, signal, on_update, tool_abort_grace_ms"
        ),
    ),
    ("pi_sdk._agent.session:message_data", "entry, index, *, verb"),
    ("pi_sdk._agent.session:dumps_session", "messages, *, metadata"),
    ("pi_sdk._agent.session:save_session", "path, messages, *, metadata"),
    ("pi_sdk._agent.session:_loads", "data, *, allow_truncated"),
    ("pi_sdk._agent.session:loads_session", "text, *, allow_truncated"),
    ("pi_sdk._agent.session:load_session", "path, *, allow_truncated"),
    (
        "pi_sdk._agent.state:AgentState.__init__",
        "self, runtime, *, system_prompt, model, thinking_level, tools, messages",
    ),
    ("pi_sdk._agent.tool_calls:_Batch.skip", "self, tool_call, *, emit_start, text"),
    ("pi_sdk._agent.tool_thread:run_in_daemon_thread", "name, function, /, **kwargs"),
    ("pi_sdk._agent.tools:FunctionTool.__init__", "self, function, *, name, description, label"),
    ("pi_sdk._agent.tools:tool", "function, /, *, name, description, label"),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
