// pi-ai 1.6's isContextOverflow / isRecoverableLength on messages given on stdin, for
// tests/core/test_overflow_rules.py (run under Node >= 22.19 by tests/_support/node22.py).
//
//   node pi16_overflow.mjs < {"cases": [{"message": <AssistantMessage>, "contextWindow", "desired"}]}
//       Prints [{"overflow": bool, "recoverable": bool}, ...] in the same order.
import { isContextOverflow, isRecoverableLength } from "@earendil-works/pi-ai";

let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const { cases } = JSON.parse(text);
const out = cases.map(({ message, contextWindow, desired }) => ({
  overflow: isContextOverflow(message, contextWindow ?? undefined),
  recoverable: isRecoverableLength(message, desired ?? 0),
}));
process.stdout.write(JSON.stringify(out));
