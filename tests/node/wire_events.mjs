// What pi_proxy.mjs (pi 0.73.1) and pi16_proxy.mjs (pi 1.6) share: an event serialized without
// its partial, as a proxy or pi-messages server sends it, and the client side's printing.
//
// serialize(event, { version, full, signatureOf }):
//   version "0.73": pi-agent-core 0.73.1's ProxyAssistantMessageEvent;
//   version "1.6":  pi-agent-core 1.6's (toolcall_end carries toolCall, done/error
//                   providerThinkingLevel); with full, pi-ai 1.6's PiMessagesEvent (content on
//                   the block ends, responseId and responseModel on done/error).
//   signatureOf(event): the block's signature, by default read from event.partial.

function partialSignature(event) {
  const block = event.partial.content[event.contentIndex];
  return block?.textSignature ?? block?.thinkingSignature;
}

export function serialize(event, { version, full = false, signatureOf = partialSignature }) {
  const index = event.contentIndex;
  const v16 = version === "1.6";
  switch (event.type) {
    case "start":
      return { type: "start" };
    case "text_start":
    case "thinking_start":
      return { type: event.type, contentIndex: index };
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return { type: event.type, contentIndex: index, delta: event.delta };
    case "text_end":
    case "thinking_end":
      return { type: event.type, contentIndex: index, contentSignature: signatureOf(event), ...(full ? { content: event.content } : {}) };
    case "toolcall_start": {
      const call = event.partial.content[index];
      return { type: event.type, contentIndex: index, id: call.id, toolName: call.name };
    }
    case "toolcall_end":
      return v16 ? { type: event.type, contentIndex: index, toolCall: event.toolCall } : { type: event.type, contentIndex: index };
    case "done":
    case "error": {
      const message = event.type === "done" ? event.message : event.error;
      const out = { type: event.type, reason: event.reason, usage: message.usage };
      if (event.type === "error") out.errorMessage = message.errorMessage;
      if (full) Object.assign(out, { responseId: message.responseId, responseModel: message.responseModel });
      if (v16 && message.providerThinkingLevel !== undefined) out.providerThinkingLevel = message.providerThinkingLevel;
      return out;
    }
  }
  throw new Error(`unknown event ${event.type}`);
}

export async function readAll(stream) {
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text;
}

// One JSON line per event (partial, message and error left out), then {"final": <message>}.
export async function printEvents(stream) {
  for await (const event of stream) {
    const { partial, message, error, ...rest } = event;
    process.stdout.write(`${JSON.stringify(rest)}\n`);
  }
  process.stdout.write(`${JSON.stringify({ final: await stream.result() })}\n`);
}
