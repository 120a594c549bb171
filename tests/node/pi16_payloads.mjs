// pi-ai 1.6's request bodies for the contexts on stdin, captured before anything is sent
// (tests/providers/test_system_messages_sent.py). Input: [{model, context, options?}] in pi's
// JSON; output: one body per case (pi's onPayload argument), or {"error": message}.
import { normalizeContext } from "@earendil-works/pi-ai";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const bodies = [];
for (const { model, context, options } of JSON.parse(input)) {
  const api = await import(`@earendil-works/pi-ai/api/${model.api}`);
  let body;
  const stop = new Error("captured");
  const events = api.stream(model, normalizeContext(context), {
    apiKey: "sk-test-not-sent",
    ...options,
    onPayload: (payload) => {
      body = structuredClone(payload);
      throw stop;
    },
  });
  let error;
  for await (const event of events) if (event.type === "error") error = event.error.errorMessage;
  bodies.push(body ?? { error });
}
process.stdout.write(JSON.stringify(bodies));
