// pi 1.6's own messages, levels and prices, for tests/core/test_pi16_shapes.py (run under
// Node >= 22.19 by tests/_support/node22.py; `npm ci --prefix tests/node` installs both).
//
//   node pi16_messages.mjs
//       Prints one JSON object:
//       - "transcript": what pi-agent-core 1.6's Agent keeps after a run on pi-ai's faux
//         provider at thinking level "high" with one tool (assistant messages with thinkingLevel
//         and durationMs, a tool result with usage and durationMs). The leading system message
//         (pi 1.6's transcript-owned prompt and tools) is left out: pi-sdk reads it in a later
//         step (issue 27, item 1).
//       - "pending": the partial of a faux stream's start event (stopReason "pending");
//       - "deferred": a deferred faux reply (stopReason "deferred" with its handle);
//       - "argumentsError": a tool call with pi-ai's parseToolCallArguments of broken JSON;
//       - "shapes": messages built by hand in the documented 1.6 shapes for the fields no faux
//         path writes (providerThinkingLevel, rawStopReason, endTurn, namespace, reasoning,
//         cacheWrite1h, totalFromProvider, nestedCalls);
//       - "levels": getSupportedThinkingLevels / clampThinkingLevel for a table of models;
//       - "costs": calculateCost for a table of usages and prices (tiers, one-hour writes).
//
//   node pi16_messages.mjs validate < {"tool": <Tool>, "toolCall": <ToolCall>}
//       pi-ai 1.6's validateToolArguments on a tool call (one pi-sdk wrote): prints
//       {"arguments": ...} when pi would run the tool, {"error": <its message>} when not.
import { Agent } from "@earendil-works/pi-agent-core";
import {
  calculateCost,
  clampThinkingLevel,
  fauxAssistantMessage,
  fauxText,
  fauxThinking,
  fauxToolCall,
  getSupportedThinkingLevels,
  parseToolCallArguments,
  validateToolArguments,
} from "@earendil-works/pi-ai";
import { fauxModels } from "./faux16.mjs";

const { faux, models } = fauxModels({
  api: "faux",
  models: [{ id: "faux-reasoner", reasoning: true }],
  deferred: { pollAfterMs: 250 },
});
const model = faux.getModel();
const streamFn = (m, context, options) => models.streamSimple(m, context, options);

function toolUsage() {
  return {
    input: 120,
    output: 30,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 150,
    cost: { input: 0.00036, output: 0.00045, cacheRead: 0, cacheWrite: 0, total: 0.00081 },
  };
}

async function transcript() {
  // Factories: a reply made when the call starts gets durationMs from pi-ai's event stream.
  faux.setResponses([
    () =>
      fauxAssistantMessage(
        [fauxThinking("The user wants the weather."), fauxToolCall("get_weather", { city: "Paris" }, { id: "call_1" })],
        { stopReason: "toolUse", responseId: "resp_1" },
      ),
    () => fauxAssistantMessage(fauxText("It is sunny in Paris."), { responseId: "resp_2" }),
  ]);
  const agent = new Agent({
    streamFn,
    initialState: {
      model,
      thinkingLevel: "high",
      tools: [
        {
          name: "get_weather",
          label: "Weather",
          description: "The weather in a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          execute: async (_id, params) => ({
            content: [{ type: "text", text: `sunny in ${params.city}` }],
            details: { city: params.city, source: "faux" },
            usage: toolUsage(),
          }),
        },
      ],
    },
  });
  await agent.prompt("What is the weather in Paris?");
  return agent.state.messages.filter((message) => message.role !== "system");
}

async function pending() {
  faux.setResponses([fauxAssistantMessage("later")]);
  const stream = models.streamSimple(model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] });
  let partial;
  for await (const event of stream) {
    if (event.type === "start") partial = structuredClone(event.partial);
  }
  return partial;
}

async function deferred() {
  faux.setResponses([fauxAssistantMessage("done later")]);
  const context = { messages: [{ role: "user", content: "take your time", timestamp: 2 }] };
  return models.completeSimple(model, context, { deferred: { window: "1h" } });
}

function argumentsErrorCall() {
  const parsed = parseToolCallArguments('{"city": "Par');
  return { type: "toolCall", id: "call_2", name: "get_weather", ...parsed };
}

function shapes() {
  const usage = {
    input: 1000,
    output: 400,
    cacheRead: 2000,
    cacheWrite: 3000,
    cacheWrite1h: 1000,
    reasoning: 250,
    totalTokens: 6400,
    cost: { input: 0.003, output: 0.006, cacheRead: 0.0006, cacheWrite: 0.0135, total: 0.02, totalFromProvider: true },
  };
  const assistant = {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Plan the call.", thinkingSignature: "sig-1" },
      { type: "toolCall", id: "fc_1", name: "search", arguments: { q: "pi" }, namespace: "web" },
    ],
    api: "openai-responses",
    provider: "openai",
    model: "gpt-5.5",
    responseModel: "gpt-5.5-2026-10-01",
    responseId: "resp_9",
    providerThinkingLevel: "xhigh",
    thinkingLevel: "max",
    usage,
    stopReason: "toolUse",
    rawStopReason: "completed",
    endTurn: false,
    timestamp: 1767225600000,
    durationMs: 1843,
  };
  const toolResult = {
    role: "toolResult",
    toolCallId: "fc_1",
    toolName: "search",
    content: [{ type: "text", text: "3 results" }],
    details: { hits: 3 },
    usage: toolUsage(),
    nestedCalls: {
      calls: [
        { id: "n1", name: "fetch", arguments: { url: "https://example.com" }, status: "ok", durationMs: 12 },
        { id: "n2", name: "fetch", argumentsBytes: 70000, status: "error", durationMs: 3, error: "timeout" },
        { id: "n3", name: "read", status: "unfinished" },
      ],
      complete: false,
    },
    isError: false,
    timestamp: 1767225601000,
    durationMs: 40,
  };
  return { assistant, toolResult };
}

function levels() {
  const maps = [
    [false, undefined],
    [true, undefined],
    [true, { xhigh: "xhigh" }],
    [true, { off: null, xhigh: "xhigh", max: "max" }],
    [true, { minimal: null, low: null, medium: null, high: "high", xhigh: "max" }],
    [true, { max: "max" }],
    [true, { off: null, minimal: null, max: null }],
    [true, { minimal: "low", low: "low", medium: "medium", high: "high", xhigh: null, max: null }],
  ];
  const requested = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
  return maps.map(([reasoning, thinkingLevelMap]) => {
    const m = { ...model, reasoning, thinkingLevelMap };
    return {
      reasoning,
      thinkingLevelMap: thinkingLevelMap ?? null,
      supported: getSupportedThinkingLevels(m),
      clamped: Object.fromEntries(requested.map((level) => [level, clampThinkingLevel(m, level)])),
    };
  });
}

function costs() {
  const plain = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const tiered = {
    input: 2.5,
    output: 15,
    cacheRead: 0.25,
    cacheWrite: 0,
    tiers: [
      { inputTokensAbove: 200000, input: 5, output: 22.5, cacheRead: 0.5, cacheWrite: 0 },
      { inputTokensAbove: 100000, input: 4, output: 20, cacheRead: 0.4, cacheWrite: 0 },
    ],
  };
  const usages = [
    { input: 1000, output: 500, cacheRead: 0, cacheWrite: 0 },
    { input: 3, output: 383, cacheRead: 0, cacheWrite: 2400, cacheWrite1h: 2400 },
    { input: 10, output: 100, cacheRead: 5000, cacheWrite: 4000, cacheWrite1h: 1000 },
    { input: 100000, output: 10, cacheRead: 0, cacheWrite: 0 },
    { input: 90000, output: 10, cacheRead: 10001, cacheWrite: 0 },
    { input: 150000, output: 1000, cacheRead: 60000, cacheWrite: 0 },
  ];
  const out = [];
  for (const cost of [plain, tiered]) {
    for (const counts of usages) {
      const usage = { ...counts, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
      calculateCost({ ...model, cost }, usage);
      out.push({ prices: cost, usage });
    }
  }
  return out;
}

async function validate() {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  const { tool, toolCall } = JSON.parse(text);
  try {
    return { arguments: validateToolArguments(tool, toolCall) };
  } catch (error) {
    return { error: error.message };
  }
}

if (process.argv[2] === "validate") {
  process.stdout.write(`${JSON.stringify(await validate())}\n`);
  process.exit(0);
}

const result = {
  transcript: await transcript(),
  pending: await pending(),
  deferred: await deferred(),
  argumentsError: argumentsErrorCall(),
  shapes: shapes(),
  levels: levels(),
  costs: costs(),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
