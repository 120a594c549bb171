// pi-ai 1.6's request bodies for tests/providers/test_pi16_payloads.py (run under Node >= 22.19
// by tests/_support/node22.py).
//
//   node pi16_payloads.mjs < {"cases": [{"id", "model", "context", "options"}, ...]}
//       For each case, pi-ai 1.6's streamSimple (from @earendil-works/pi-ai/compat, the
//       dispatcher by model.api) sends its request to a capture server on 127.0.0.1: the case's
//       model.baseUrl is replaced by http://127.0.0.1:<port>/<id>. The server records the
//       method, path, headers and JSON body and answers HTTP 400 with a JSON error, which every
//       API module turns into an error event without retrying, so each case makes exactly one
//       request and nothing leaves the machine. Prints {"<id>": {"path", "headers", "body"} |
//       {"error": <why no request was made>}}.
//       A case with "refuse": <text> gets, on its first request, Claude's refusal of strict tools
//       over its limits with that text (Anthropic: 400 invalid_request_error; Bedrock: a
//       ValidationException); its second request (sent without the prefer-strict tools) is the
//       one recorded.
import http from "node:http";
import { streamSimple } from "@earendil-works/pi-ai/compat";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));

const captured = {};
const refusals = new Map(input.cases.filter((c) => c.refuse).map((c) => [c.id, c.refuse]));
const refuse = (res, url, text) => {
  if (url.includes("/model/")) {
    res.writeHead(400, { "content-type": "application/json", "x-amzn-errortype": "ValidationException" });
    res.end(JSON.stringify({ message: text }));
  } else {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: text } }));
  }
};
const server = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const id = decodeURIComponent(req.url.split("/")[1] ?? "");
    if (refusals.has(id)) {
      const text = refusals.get(id);
      refusals.delete(id);
      refuse(res, req.url, text);
      return;
    }
    let parsed = body;
    try {
      parsed = JSON.parse(body);
    } catch {}
    captured[id] ??= { method: req.method, path: req.url, headers: req.headers, body: parsed };
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { type: "invalid_request_error", message: "captured" }, message: "captured" }));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();

// Keys the API modules read from the environment must not leak in from the caller's shell.
for (const name of Object.keys(process.env)) {
  if (/(_API_KEY|_TOKEN|AWS_|GOOGLE_|PI_CACHE_RETENTION)/.test(name)) delete process.env[name];
}
process.env.AWS_REGION = "us-east-1";
process.env.AWS_BEDROCK_FORCE_HTTP1 = "1"; // the capture server speaks HTTP/1.1

const out = {};
for (const { id, model, context, options } of input.cases) {
  const local = { ...model, baseUrl: `http://127.0.0.1:${port}/${encodeURIComponent(id)}` };
  try {
    const message = await streamSimple(local, context, { apiKey: "test-key", maxRetries: 0, ...options }).result();
    out[id] = captured[id] ?? { error: message.errorMessage ?? "no request" };
  } catch (error) {
    out[id] = captured[id] ?? { error: String(error?.stack ?? error) };
  }
}
server.close();
process.stdout.write(JSON.stringify(out));
