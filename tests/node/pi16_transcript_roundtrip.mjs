// pi 1.6 writes and reads transcripts with system messages (tests/agent/test_pi16_transcript_interop.py).
//
//   node pi16_transcript_roundtrip.mjs write
//       Runs pi-agent-core 1.6's Agent on pi-ai's faux provider: a prompt and tools (the leading
//       system message), a tool call, a tool change (pi announces it in a system message), a
//       prompt update with sections, a second prompt. Prints the transcript (pi's JSON).
//   node pi16_transcript_roundtrip.mjs read < [messages]
//       Loads a transcript (one pi-sdk wrote) into a new pi Agent, continues it with one more
//       prompt on the faux provider, and prints what pi sees: its current prompt and tools, the
//       context its stream function got, and the transcript it keeps.
import { Agent } from "@earendil-works/pi-agent-core";
import {
  fauxAssistantMessage,
  fauxText,
  fauxToolCall,
  getCurrentSystemPrompt,
  getCurrentTools,
} from "@earendil-works/pi-ai";
import { fauxModels } from "./faux16.mjs";

const { faux, models } = fauxModels({ api: "faux", models: [{ id: "faux-reasoner", reasoning: true }] });
const model = faux.getModel();
const seen = [];
const streamFn = (m, context, options) => {
  seen.push(structuredClone(context.messages));
  return models.streamSimple(m, context, options);
};

function tool(name, description, parameters) {
  return {
    name,
    label: name,
    description,
    parameters: parameters ?? { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: async (_id, params) => ({ content: [{ type: "text", text: `${name}: ${params.city}` }], details: {} }),
  };
}

async function write() {
  faux.setResponses([
    () => fauxAssistantMessage([fauxToolCall("get_weather", { city: "Paris" }, { id: "call_1" })], { stopReason: "toolUse" }),
    () => fauxAssistantMessage(fauxText("Sunny in Paris.")),
    () => fauxAssistantMessage(fauxText("Noted.")),
  ]);
  const agent = new Agent({
    streamFn,
    initialState: { model, systemPrompt: "You are a weather bot.", tools: [tool("get_weather", "Weather in a city")] },
  });
  await agent.prompt("Weather in Paris?");
  agent.state.tools = [tool("get_forecast", "Forecast for a city")];
  agent.state.messages = [
    ...agent.state.messages,
    { role: "system", content: "Answer in one line.", sections: { units: "<units>metric</units>" }, timestamp: Date.now() },
  ];
  await agent.prompt("And tomorrow?");
  return agent.state.messages;
}

async function read(messages) {
  faux.setResponses([() => fauxAssistantMessage(fauxText("Still sunny."))]);
  const tools = getCurrentTools(messages).map((d) => tool(d.name, d.description, d.parameters));
  const agent = new Agent({ streamFn, initialState: { model, tools, messages } });
  const loaded = { prompt: agent.state.systemPrompt, tools: getCurrentTools(agent.state.messages).map((t) => t.name) };
  await agent.prompt("Thanks!");
  return { loaded, sent: seen[0], messages: agent.state.messages, prompt: getCurrentSystemPrompt(agent.state.messages) };
}

let answer;
if (process.argv[2] === "read") {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  answer = await read(JSON.parse(input));
} else {
  answer = await write();
}
process.stdout.write(JSON.stringify(answer));
