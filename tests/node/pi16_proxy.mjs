// pi 1.6's side of the proxy and pi-messages protocols, for tests/proxy/test_pi16_interop.py
// (run under Node >= 22.19 by tests/_support/node22.py; `npm ci --prefix tests/node`).
//
//   node pi16_proxy.mjs serve TOKEN
//       A server made of pi-ai 1.6's own exports: its faux provider streams a scripted reply
//       (signed thinking, text, a tool call; responseId, responseModel, providerThinkingLevel)
//       through createModels().streamSimple, and each event goes out without its partial:
//         POST /api/stream   in pi-agent-core 1.6's ProxyAssistantMessageEvent shape (proxy.d.ts)
//         POST /v1/messages  in pi-ai 1.6's PiMessagesEvent shape (api/pi-messages.d.ts)
//       A wrong bearer token gets each protocol's refusal: {"error": "bad token"} on the proxy,
//       {"error": {"message": "bad token", "code": "unauthorized"}} on pi-messages.
//       GET /requests returns the JSON bodies received so far. Prints {"url"} once listening.
//
//   node pi16_proxy.mjs proxy-client URL TOKEN < {"model", "context", "options"?}
//   node pi16_proxy.mjs messages-client URL TOKEN < {"model", "context", "options"?}
//       pi-agent-core 1.6's streamProxy against URL (a proxy server), or pi-ai 1.6's pi-messages
//       API (api/pi-messages.js `stream`, the model's baseUrl set to URL) with TOKEN as its key.
//       The context goes through pi-ai's normalizeContext first, as an Agent's does. Prints one
//       JSON line per event (partial, message and error left out) and a last line
//       {"final": <the message>}.
import http from "node:http";
import { streamProxy } from "@earendil-works/pi-agent-core";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, normalizeContext } from "@earendil-works/pi-ai";
import { stream as piMessagesStream } from "@earendil-works/pi-ai/api/pi-messages";
import { fauxModels } from "./faux16.mjs";
import { printEvents, readAll, serialize } from "./wire_events.mjs";

const THINKING = { ...fauxThinking("The user wants the weather; I should call the tool."), thinkingSignature: "faux-sig-1" };
const REPLY = [
  THINKING,
  fauxText("Let me look that up for you, one moment."),
  fauxToolCall("get_weather", { city: "Paris", units: "metric", days: [1, 2] }, { id: "call_7" }),
];

function reply() {
  return {
    ...fauxAssistantMessage(REPLY, { stopReason: "toolUse", responseId: "resp_faux_1" }),
    responseModel: "faux-1-2026",
    providerThinkingLevel: "high",
  };
}

// The faux provider leaves signatures out of its partials; a real provider's carry them.
function signatureOf(event) {
  const block = event.partial.content[event.contentIndex];
  const scripted = REPLY[event.contentIndex];
  return block?.textSignature ?? block?.thinkingSignature ?? scripted?.textSignature ?? scripted?.thinkingSignature;
}

async function serve(token) {
  const { faux, models } = fauxModels({ api: "faux", models: [{ id: "faux-1", reasoning: true }] });
  const received = [];
  const server = http.createServer(async (request, response) => {
    const body = await readAll(request);
    if (request.method === "GET" && request.url === "/requests") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(received));
      return;
    }
    const full = request.url === "/v1/messages";
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: full ? { message: "bad token", code: "unauthorized" } : "bad token" }));
      return;
    }
    const { context, options } = JSON.parse(body);
    received.push(JSON.parse(body));
    faux.setResponses([reply]);
    response.writeHead(200, { "content-type": "text/event-stream" });
    for await (const event of models.streamSimple(faux.getModel(), context, options)) {
      response.write(`data: ${JSON.stringify(serialize(event, { version: "1.6", full, signatureOf }))}\n\n`);
    }
    response.end();
  });
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
}

async function client(kind, url, token) {
  const { model, context, options } = JSON.parse(await readAll(process.stdin));
  const transcript = normalizeContext(context);
  const stream =
    kind === "proxy-client"
      ? streamProxy(model, transcript, { ...(options ?? {}), proxyUrl: url, authToken: token })
      : piMessagesStream({ ...model, baseUrl: url }, transcript, { ...(options ?? {}), apiKey: token });
  await printEvents(stream);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "serve") await serve(args[0]);
else if (mode === "proxy-client" || mode === "messages-client") await client(mode, args[0], args[1]);
else throw new Error("usage: node pi16_proxy.mjs serve TOKEN | proxy-client URL TOKEN | messages-client URL TOKEN");
