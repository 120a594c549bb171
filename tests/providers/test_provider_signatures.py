"""Calling conventions of the marked signatures in the provider packages.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    ("pi_sdk_anthropic._client:client_lease", "model, api_key, *, bearer"),
    ("pi_sdk_anthropic._client:build_headers", "model, options, api_key, *, has_tools, has_files"),
    ("pi_sdk_anthropic.messages._decode:Decoder.__init__", "self, builder, context, *, oauth"),
    ("pi_sdk_anthropic.messages._decode:Decoder._usage", "self, usage, *, default"),
    ("pi_sdk_anthropic.messages._decode:Decoder.finish", "self, *, saw_done"),
    (
        "pi_sdk_anthropic.messages._request:convert_messages",
        (
            "context, model, *, oauth, cache_control, foreign_reasoning, origin, "
            "parts, definitions, effort"
        ),
    ),
    (
        "pi_sdk_anthropic.messages._request:build_request",
        "model, context, options, *, oauth, origin, prefer_strict",
    ),
    ("pi_sdk_anthropic.messages._system:read_parts", "model, context, *, extra_tools"),
    ("pi_sdk_anthropic.messages._system:system_message", "message, parts, *, oauth, definitions"),
    (
        "pi_sdk_anthropic.messages._tools:convert_tools",
        "tools, model, *, oauth, cache_control, prefer_strict",
    ),
    ("pi_sdk_anthropic.messages._usage:apply_usage", "builder, usage, *, default"),
    (
        "pi_sdk_azure._client:plan_on",
        "model, context, options, *, api, path, build_payload, decoder",
    ),
    ("pi_sdk_azure._endpoint:resolve_endpoint", "model, options, *, api"),
    ("pi_sdk_azure._filters:filter_message", "what, *, prompt, completion"),
    ("pi_sdk_azure.completions._decode:Decoder.__init__", "self, builder, *, grammar"),
    ("pi_sdk_bedrock._client:converse_path", "model_id, *, stream"),
    (
        "pi_sdk_bedrock._client:BedrockClient.__init__",
        "self, http, *, region, endpoint, token, credentials",
    ),
    (
        "pi_sdk_bedrock._client:open_converse",
        "client, model_id, payload, *, stream, headers, timeout_s",
    ),
    ("pi_sdk_bedrock.converse._decode:Decoder.finish", "self, *, saw_done"),
    (
        "pi_sdk_bedrock.converse._request:convert_messages",
        "context, model, *, cache_retention, parts, **transform",
    ),
    (
        "pi_sdk_bedrock.converse._request:build_request",
        "model, context, options, *, origin, prefer_strict",
    ),
    (
        "pi_sdk_google._client:_new_client",
        "*, vertex, api_key, project, location, credentials, timeout_ms",
    ),
    (
        "pi_sdk_google._client:get_client",
        "*, vertex, api_key, project, location, credentials, timeout_ms",
    ),
    ("pi_sdk_google._client:provider_error_from_body", "error, status, headers, *, retry_delay_ms"),
    (
        "pi_sdk_google._shared_call:plan_call",
        "model, context, options, connect, new_decoder, *, api, known",
    ),
    ("pi_sdk_google._shared_decode:GeminiDecoder.finish", "self, *, saw_done"),
    ("pi_sdk_google._shared_request:convert_messages", "model, context, options, origin, *, parts"),
    ("pi_sdk_google.vertex._request:base_url", "model, *, api_key, project, location, api_version"),
    ("pi_sdk_mistral.conversations._decode:Decoder.finish", "self, *, saw_done"),
    (
        "pi_sdk_mistral.conversations._request:convert_messages",
        "context, model, *, foreign_reasoning, origin",
    ),
    ("pi_sdk_mistral.conversations._request:build_request", "model, context, options, *, origin"),
    (
        "pi_sdk_openai._client:plan_request",
        "model, options, *, path, build_payload, decoder, client",
    ),
    ("pi_sdk_openai._listing_http:Lister.json", "self, url, *, body, conditional, missing_ok"),
    (
        "pi_sdk_openai._listing_shapes:models_from_list",
        "payload, *, provider, base_url, where, compat",
    ),
    ("pi_sdk_openai._listing_shapes:ollama_names", "payload, *, where"),
    ("pi_sdk_openai._listing_shapes:model_from_show", "name, show, *, provider, base_url, compat"),
    (
        "pi_sdk_openai._servers:openai_compatible_provider",
        "id, base_url, *, name, api_key, env, headers, models_api, compat, models",
    ),
    (
        "pi_sdk_openai.completions._assistant:assistant_message",
        "message, compat, *, reasoning_model, grammar",
    ),
    ("pi_sdk_openai.completions._decode:Decoder.__init__", "self, builder, *, grammar"),
    ("pi_sdk_openai.completions._decode:Decoder.finish", "self, *, saw_done"),
    (
        "pi_sdk_openai.completions._request:convert_messages",
        "model, context, compat, *, options, origin, parts",
    ),
    (
        "pi_sdk_openai.completions._request:build_payload",
        "model, context, options, *, compat, origin",
    ),
    ("pi_sdk_openai.responses._compat:resolve_responses_compat", "model, *, azure"),
    ("pi_sdk_openai.responses._decode:Decoder.__init__", "self, builder, *, service_tier, grammar"),
    ("pi_sdk_openai.responses._decode:Decoder.finish", "self, *, saw_done"),
    (
        "pi_sdk_openai.responses._input:convert_input",
        (
            "model, context, *, foreign_reasoning, origin, parts, "
            "configuration_effort, convert_tools, grammar"
        ),
    ),
    (
        "pi_sdk_openai.responses._request:build_payload",
        "model, context, options, *, origin, compat",
    ),
    ("pi_sdk_openai.responses._system:read_parts", "model, context, *, extra_tools"),
    ("pi_sdk_openai.responses._system:SystemItems.items", "self, message, *, leading"),
    (
        "pi_sdk_openai.responses._tools:convert_tools",
        "tools, model, *, strict_field, grammar_tools",
    ),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
