// Writes pi-coding-agent session files with its own SessionManager (fixtures for
// tests/agent/test_pi_session.py). Usage:
//   node write_pi_sessions.mjs <pi-coding-agent package dir> <output dir>
// Regenerate the committed fixtures with:
//   node tests/agent/pi_sessions/write_pi_sessions.mjs \
//     /work/scratch/npm/node_modules/@mariozechner/pi-coding-agent tests/agent/pi_sessions
import { mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, outDir] = process.argv.slice(2);
const { SessionManager } = await import(
  pathToFileURL(join(resolve(packageDir), "dist/core/session-manager.js")).href
);

const usage = {
  input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
};
const assistant = (content, stopReason, timestamp) => ({
  role: "assistant", content, api: "anthropic-messages", provider: "anthropic",
  model: "claude-sonnet-4-5", usage, stopReason, timestamp,
});

function write(name, build) {
  const dir = mkdtempSync(join(resolve(outDir), ".tmp-"));
  const session = SessionManager.create("/home/user/project", dir);
  build(session);
  const [file] = readdirSync(dir);
  renameSync(join(dir, file), join(resolve(outDir), name));
  rmSync(dir, { recursive: true });
}

// Messages, a tool call and its result, a model and a thinking-level change, a custom entry,
// an extension's message, a label, a name, then a branch back to the first answer.
write("branched.jsonl", (s) => {
  s.appendModelChange("anthropic", "claude-sonnet-4-5");
  s.appendThinkingLevelChange("medium");
  s.appendMessage({ role: "user", content: "Weather in Zürich?", timestamp: 1767225600000 });
  const first = s.appendMessage(assistant(
    [
      { type: "thinking", thinking: "Use the tool.", thinkingSignature: "EqQBCkYIBxgCKkA=" },
      { type: "toolCall", id: "toolu_01", name: "get_weather", arguments: { city: "Zürich" } },
    ],
    "toolUse", 1767225601000,
  ));
  s.appendMessage({
    role: "toolResult", toolCallId: "toolu_01", toolName: "get_weather",
    content: [{ type: "text", text: "4 °C, snow" }], details: { raw: { temp: 4 } },
    isError: false, timestamp: 1767225602000,
  });
  s.appendCustomEntry("my-extension/state", { counter: 3, tags: ["a", "b"] });
  s.appendMessage(assistant([{ type: "text", text: "Snowing, 4 °C." }], "stop", 1767225603000));
  s.appendCustomMessageEntry("my-extension/note", "Remember: the user prefers Celsius.", true, { source: "prefs" });
  s.appendLabelChange(first, "tool call");
  s.appendSessionInfo("Zürich weather");
  // Back to the first answer: the abandoned branch stays in the file, the new one is the leaf.
  s.branchWithSummary(first, "The user asked for the weather; the tool said snow.");
  s.appendMessage({ role: "user", content: "And tomorrow? 😀", timestamp: 1767225604000 });
  s.appendMessage(assistant([{ type: "text", text: "Sunny, 7 °C." }], "stop", 1767225605000));
});

// A compaction: the summary replaces the start, the kept messages follow it.
write("compacted.jsonl", (s) => {
  s.appendMessage({ role: "user", content: "First question", timestamp: 1767225600000 });
  s.appendMessage(assistant([{ type: "text", text: "First answer" }], "stop", 1767225601000));
  const kept = s.appendMessage({ role: "user", content: "Second question", timestamp: 1767225602000 });
  s.appendMessage(assistant([{ type: "text", text: "Second answer" }], "stop", 1767225603000));
  s.appendCompaction("The user asked two questions.", kept, 12345);
  s.appendMessage({ role: "user", content: "Third question", timestamp: 1767225604000 });
  s.appendMessage(assistant([{ type: "text", text: "Third answer" }], "stop", 1767225605000));
});
