// pi-ai 1.6's own transcript helpers on the contexts given on stdin (tests/core/test_transcript.py).
// Input: [{context, support}]; output: one answer per case, pi's JSON.
import {
  collapseSystemMessages,
  getCurrentSystemPrompt,
  getCurrentTools,
  getToolStateChanges,
  normalizeContext,
  resolveTranscriptTools,
} from "@earendil-works/pi-ai";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const answers = JSON.parse(input).map(({ context, support, previous, current }) => {
  if (previous) return { changes: getToolStateChanges(previous, current) };
  const transcript = normalizeContext(context);
  return {
    normalized: transcript.messages,
    prompt: getCurrentSystemPrompt(transcript.messages),
    tools: getCurrentTools(transcript.messages),
    collapsed: collapseSystemMessages(transcript).messages,
    resolved: resolveTranscriptTools(transcript.messages, support),
  };
});
process.stdout.write(JSON.stringify(answers));
