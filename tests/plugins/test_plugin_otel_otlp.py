"""pi-sdk-otel through the OTLP/HTTP exporter to a loopback receiver (protobuf decoded)."""

import gzip
from http.server import BaseHTTPRequestHandler

import pi_sdk_otel
import pytest
from _support.loopback import LoopbackServer, model_at, text_reply
from _support.threaded_http import threaded_http_server
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from pi_sdk_otel import Tracing

import pi_sdk
from pi_sdk import Agent, ToolCall, tool
from pi_sdk.plugins import PluginManager, load_plugins, use_plugin_manager
from pi_sdk.testing import ScriptedProvider, ScriptedReply


class _Receiver(BaseHTTPRequestHandler):
    """Takes OTLP/HTTP protobuf posts on /v1/traces; answers with an empty export response."""

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.server.posts.append((self.path, self.headers.get("Content-Type"), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    with threaded_http_server(_Receiver, posts=[]) as server:
        yield server


def decoded_spans(posts):
    spans = []
    for path, content_type, body in posts:
        assert path == "/v1/traces"
        assert content_type == "application/x-protobuf"
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                assert scope_spans.scope.name == "pi_sdk_otel"
                spans.extend(scope_spans.spans)
    return spans


def attributes(span):
    values = {}
    for kv in span.attributes:
        value = kv.value
        kind = value.WhichOneof("value")
        if kind == "array_value":
            values[kv.key] = tuple(v.string_value for v in value.array_value.values)
        else:
            values[kv.key] = getattr(value, kind)
    return values


@tool
async def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return key.upper()


async def test_spans_reach_an_otlp_http_receiver_with_genai_attributes(receiver):
    host, port = receiver.server_address
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"http://{host}:{port}/v1/traces"))
    )
    # The installed plugin, loaded from its entry point like any user's would be.
    with use_plugin_manager(PluginManager(), load_entry_points=True) as pm:
        load_plugins()
        assert pm.get_plugin("otel") is pi_sdk_otel
        pi_sdk_otel.configure(Tracing(provider))
        try:
            scripted = ScriptedProvider(
                [
                    ScriptedReply(
                        content=[
                            ToolCall(id="call_a", name="lookup", arguments={"key": "a"}),
                            ToolCall(id="call_b", name="lookup", arguments={"key": "b"}),
                        ]
                    ),
                    "done",
                ]
            )
            await Agent(model=scripted.model, tools=[lookup]).prompt("look a and b up")
            async with LoopbackServer([text_reply("anthropic-messages", "Hi")]) as vendor:
                model = model_at("anthropic-messages", vendor.url)
                message = await pi_sdk.complete(
                    model,
                    pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")]),
                    pi_sdk.StreamOptions(api_key="test-key-123", max_tokens=64),
                )
        finally:
            pi_sdk_otel.reset()
            provider.shutdown()
    assert message.stop_reason == "stop"

    spans = decoded_spans(receiver.posts)
    names = sorted(s.name for s in spans)
    assert names.count("execute_tool lookup") == 2
    assert names.count("turn") == 2
    assert names.count("invoke_agent") == 1
    by_id = {s.span_id: s for s in spans}
    tool_spans = [s for s in spans if s.name == "execute_tool lookup"]
    for span in tool_spans:
        parent = by_id[span.parent_span_id]
        assert parent.name == "turn"
        assert by_id[parent.parent_span_id].name == "invoke_agent"
        assert span.kind == ProtoSpan.SPAN_KIND_INTERNAL
    assert {attributes(s)["gen_ai.tool.call.id"] for s in tool_spans} == {"call_a", "call_b"}

    (chat,) = [s for s in spans if s.name == f"chat {model.id}"]
    assert chat.kind == ProtoSpan.SPAN_KIND_CLIENT
    assert chat.parent_span_id == b""  # no agent: a root span
    values = attributes(chat)
    assert values["gen_ai.operation.name"] == "chat"
    assert values["gen_ai.provider.name"] == "anthropic"
    assert values["gen_ai.request.model"] == model.id
    assert values["gen_ai.request.max_tokens"] == 64
    assert values["gen_ai.response.finish_reasons"] == ("stop",)
    assert values["gen_ai.usage.input_tokens"] == message.usage.input
    assert values["gen_ai.usage.output_tokens"] == message.usage.output == 3
    assert values["server.address"] == "127.0.0.1"
    assert values["server.port"] == vendor_port(model)
    if message.response_id:
        assert values["gen_ai.response.id"] == message.response_id
    assert all("test-key-123" not in str(attributes(s)) for s in spans)


def vendor_port(model):
    from urllib.parse import urlsplit

    return urlsplit(model.base_url).port
