// pi-mono's side of the proxy, for tests/proxy/test_proxy_pi_mono.py (run under node).
//
//   node pi_proxy.mjs serve TOKEN
//       An /api/stream server made of pi-ai's own parts: the faux provider streams a reply
//       (thinking, text, a tool call) through pi-ai's streamSimple, and each event is sent with
//       its partial stripped, in pi-agent-core's ProxyAssistantMessageEvent shape (proxy.d.ts).
//       Prints {"url": ...} once listening; serves until killed.
//
//   node pi_proxy.mjs client URL TOKEN < {"model": ..., "context": ..., "options": ...}
//       pi-agent-core's own streamProxy client against URL. Prints one JSON line per event
//       (partial left out) and a last line {"final": <the message>}.
import http from "node:http";
import { streamProxy } from "@mariozechner/pi-agent-core";
import {
  fauxAssistantMessage,
  fauxText,
  fauxThinking,
  fauxToolCall,
  registerFauxProvider,
  streamSimple,
} from "@mariozechner/pi-ai";
import { printEvents, readAll, serialize } from "./wire_events.mjs";

export const REPLY = [
  fauxThinking("The user wants the weather; I should call the tool."),
  fauxText("Let me look that up for you, one moment."),
  fauxToolCall("get_weather", { city: "Paris", units: "metric", days: [1, 2] }, { id: "call_7" }),
];

async function serve(token) {
  const faux = registerFauxProvider({ models: [{ id: "faux-1", reasoning: true }] });
  const server = http.createServer(async (request, response) => {
    const body = await readAll(request);
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: "bad token" }));
      return;
    }
    const { context, options } = JSON.parse(body);
    faux.setResponses([fauxAssistantMessage(REPLY, { stopReason: "toolUse" })]);
    response.writeHead(200, { "content-type": "text/event-stream" });
    for await (const event of streamSimple(faux.getModel(), context, options)) {
      response.write(`data: ${JSON.stringify(serialize(event, { version: "0.73" }))}\n\n`);
    }
    response.end();
  });
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
}

async function client(url, token) {
  const { model, context, options } = JSON.parse(await readAll(process.stdin));
  const stream = streamProxy(model, context, { ...(options ?? {}), proxyUrl: url, authToken: token });
  await printEvents(stream);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "serve") await serve(args[0]);
else if (mode === "client") await client(args[0], args[1]);
else throw new Error(`usage: node pi_proxy.mjs serve TOKEN | client URL TOKEN`);
