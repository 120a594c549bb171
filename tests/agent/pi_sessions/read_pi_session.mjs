// Opens a session file with pi-coding-agent's SessionManager and prints what pi makes of it
// (tests/agent/test_pi_session.py). Usage: node read_pi_session.mjs <package dir> <file>
// Prints one JSON object: the header, the leaf, the context pi would send (messages, model,
// thinking level), every entry, and the id pi gives a message appended to it.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, file] = process.argv.slice(2);
const { SessionManager } = await import(
  pathToFileURL(join(resolve(packageDir), "dist/core/session-manager.js")).href
);
const session = SessionManager.open(file);
const before = {
  header: session.getHeader(),
  leafId: session.getLeafId(),
  context: session.buildSessionContext(),
  entries: session.getEntries(),
  roots: session.getTree().length,
};
const appended = session.appendMessage({ role: "user", content: "continued in pi", timestamp: 1 });
console.log(JSON.stringify({ ...before, appended, parentOfAppended: session.getEntry(appended).parentId }));
