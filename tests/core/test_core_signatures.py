"""Calling conventions of the marked signatures in the core, ``pi_sdk``.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    ("pi_sdk._kit.catalog_providers:package_providers", "package, *, apis, env, names"),
    (
        "pi_sdk._kit.catalog_providers:ProviderFactory.__call__",
        "self, provider_id, *, api_key, base_url, headers",
    ),
    ("pi_sdk._kit.clients:ClientCache.__init__", "self, close, *, max_per_loop"),
    ("pi_sdk._kit.clients:ClientCache.lease", "self, key, build, *, secret"),
    (
        "pi_sdk._kit.context_parts:ContextParts.read",
        "cls, context, model, *, in_place, tool_support, extra_tools",
    ),
    ("pi_sdk._kit.gc_tuning:tune_gc_for_streams", "*, young"),
    (
        "pi_sdk._kit.http_pool:PooledTransport.__init__",
        "self, *, verify, per_pool, max_pools, keepalive_expiry, trust_env",
    ),
    ("pi_sdk._kit.plugin_hooks:lazy_api", "api, module, stream, recognize, *, call, count_tokens"),
    (
        "pi_sdk._kit.recorded_model:recorded_model",
        "provider, model_id, *, api, base_url, aliases, **stand_in",
    ),
    (
        "pi_sdk._models.collection:Models.__init__",
        "self, providers, *, plugins, store, rate_limits",
    ),
    ("pi_sdk._models.collection:Models.add", "self, provider, *, replace"),
    ("pi_sdk._models.collection:Models.register_model", "self, model, *, replace"),
    (
        "pi_sdk._models.collection:Models.register_api_provider",
        "self, provider, *, replace, source_id",
    ),
    (
        "pi_sdk._models.collection:Models.refresh",
        "self, providers, *, allow_network, force, timeout_s, signal",
    ),
    ("pi_sdk._models.collection:admit_api_provider", "apis, provider, *, replace, source_id"),
    ("pi_sdk._models.default:_PluginModels.register_provider", "self, provider, *, replace"),
    ("pi_sdk._models.default:register_provider", "provider, *, replace"),
    ("pi_sdk._models.default:register_api_provider", "provider, *, replace, source_id"),
    ("pi_sdk._models.default:register_model", "model, *, replace"),
    (
        "pi_sdk._models.fallback:FallbackPolicy.__init__",
        (
            "self, models, *, move_on, refusals, after_content, continue_prompt, "
            "sticky, on_attempt, collection"
        ),
    ),
    ("pi_sdk._models.fallback:FallbackPolicy.chain", "self, first, first_options, *, collection"),
    (
        "pi_sdk._models.fallback_stream:FallbackRun._record",
        "self, entry, message, kind, *, moved_on, content",
    ),
    ("pi_sdk._models.file_store:_Unusable.__init__", "self, message, *, set_aside"),
    ("pi_sdk._models.rate_limit:RateLimiter.__init__", "self, limits, *, clock"),
    (
        "pi_sdk._models.refresh:refresh_providers",
        "providers, *, catalog, api_key, store, allow_network, force, timeout_s, signal",
    ),
    ("pi_sdk._plugins.calling:call_hook_implementation", "impl, /, **kwargs"),
    ("pi_sdk._plugins.manager:set_plugin_manager", "pm, *, load_entry_points"),
    ("pi_sdk._plugins.manager:use_plugin_manager", "pm, *, load_entry_points"),
    ("pi_sdk._stream.assistant_message:new_assistant_message", "model, *, base_url"),
    ("pi_sdk._stream.builder:MessageBuilder.__init__", "self, model, *, base_url"),
    ("pi_sdk._stream.builder:MessageBuilder.open_text", "self, key, text, *, signature"),
    ("pi_sdk._stream.builder:MessageBuilder.end_text", "self, key, *, text, signature"),
    (
        "pi_sdk._stream.builder:MessageBuilder.open_thinking",
        "self, key, text, *, signature, redacted",
    ),
    ("pi_sdk._stream.builder:MessageBuilder.thinking", "self, key, piece, *, signature"),
    ("pi_sdk._stream.builder:MessageBuilder.end_thinking", "self, key, *, text, signature"),
    (
        "pi_sdk._stream.builder:MessageBuilder.open_tool_call",
        "self, key, *, id, name, arguments, initial, signature",
    ),
    ("pi_sdk._stream.builder:MessageBuilder.end_tool_call", "self, key, *, arguments"),
    (
        "pi_sdk._stream.builder:MessageBuilder.tool_call",
        "self, *, id, name, arguments, signature, invalid_arguments",
    ),
    (
        "pi_sdk._stream.builder:MessageBuilder.set_usage",
        ("self, *, input, output, cache_read, cache_write, reasoning, cache_write_1h, price"),
    ),
    ("pi_sdk._stream.builder:MessageBuilder.set_response", "self, *, id, model"),
    ("pi_sdk._stream.builder:MessageBuilder.done", "self, reason, *, exact"),
    ("pi_sdk._stream.builder:MessageBuilder.error", "self, message, *, reason"),
    ("pi_sdk._stream.call_scope:CallScope.__init__", "self, *, api_key, payload_hooks, gate"),
    (
        "pi_sdk._stream.event_stream:AssistantMessageEventStream.__init__",
        (
            "self, start, *, model, signal, max_retries, max_retry_delay_ms, "
            "timeout_ms, idle_timeout_ms, secrets, context, output, observe, scope, "
            "on_retry"
        ),
    ),
    ("pi_sdk._stream.partial_json:IncrementalJsonParser._open_string", "self, *, is_key, at"),
    ("pi_sdk._stream.provider:Provider.configure", "self, *, api_key, base_url, headers, name"),
    (
        "pi_sdk._stream.provider_errors:ProviderError.__init__",
        "self, message, *, status, retryable, retry_after_ms, incomplete",
    ),
    (
        "pi_sdk._stream.provider_errors:ProviderError.from_http",
        "cls, status, message, headers, *, fallback_retry_after_ms",
    ),
    ("pi_sdk._stream.provider_errors:http_error_message", "status, *, reason, code, message, body"),
    ("pi_sdk._stream.provider_errors:connection_error", "exc, phase, *, timed_out"),
    ("pi_sdk._stream.provider_errors:malformed_event_error", "data, *, event, number, error"),
    (
        "pi_sdk._stream.response_body:ResponseBody.__init__",
        "self, chunks, *, transport_errors, timeout_errors",
    ),
    (
        "pi_sdk._stream.response_body:ResponseBody.check_content",
        "self, content_type, *, status, expected",
    ),
    ("pi_sdk._stream.response_body:ResponseBody.drain", "self, *, timeout_s, limit"),
    ("pi_sdk._stream.run:StreamRun._fail", "self, reason, text, *, cut"),
    ("pi_sdk._stream.usage_estimate:estimate_missing_usage", "message, model, context, *, reason"),
    ("pi_sdk._stream.wire_decoder:_DecoderBase.finish", "self, *, saw_done"),
    ("pi_sdk._wire.agent_types:AgentToolResult.text", "cls, text, *, details, terminate"),
    (
        "pi_sdk._wire.agent_types:AgentTool.__init__",
        (
            "self, *, name, description, parameters, execute, label, execution_mode, "
            "prepare_arguments, output_schema, constrained_sampling"
        ),
    ),
    ("pi_sdk._wire.agent_types:agent_event_to_dict", "event, *, include_partial"),
    ("pi_sdk._wire.choices:check_choice", "setting, value, alias, *, optional"),
    ("pi_sdk._wire.estimate:estimate_context_tokens", "context, *, usage_from"),
    ("pi_sdk._wire.ids:sanitize_tool_call_id", "tool_call_id, *, max_len, allowed"),
    ("pi_sdk._wire.private_file:write_atomically", "target, text, *, what"),
    ("pi_sdk._wire.private_file:read_private", "path, *, max_bytes"),
    (
        "pi_sdk._wire.redact:Redactor.__init__",
        ("self, *, keys, patterns, values, default_keys, default_patterns, environment_values"),
    ),
    ("pi_sdk._wire.tool:Tool.strict_mode", "self, model, supported, unsupported, *, prefer"),
    (
        "pi_sdk._wire.transform:transform_messages",
        (
            "messages, model, *, normalize_tool_call_id, foreign_reasoning, origin, "
            "reasoning_content, documents"
        ),
    ),
    ("pi_sdk._wire.wire_model:WireModel.model_post_init", "self, context, /"),
    ("pi_sdk.events:event_to_dict", "event, *, include_partial"),
    ("pi_sdk.plugins.hookspecs:RegisterApiProvider.__call__", "self, provider, *, replace"),
    ("pi_sdk.plugins.hookspecs:RegisterProvider.__call__", "self, provider, *, replace"),
    ("pi_sdk.plugins.hookspecs:RegisterModel.__call__", "self, model, *, replace"),
    ("pi_sdk.types:DocumentContent.model_post_init", "self, context, /"),
    ("pi_sdk.types:ToolCall.model_post_init", "self, context, /"),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
