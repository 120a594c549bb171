// pi-ai 1.6's default output cap for tests/core/test_output_cap_16.py (Node >= 22.19).
//
//   node pi16_output_cap.mjs < {"cases": [{"model", "context", "maxTokens"}]}
//       Prints [clampMaxTokensToContext(model, normalizeContext(context), maxTokens ?? model.maxTokens), ...]
import { clampMaxTokensToContext } from "@earendil-works/pi-ai/api/simple-options";
import { normalizeContext } from "@earendil-works/pi-ai/utils/transcript";

let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const { cases } = JSON.parse(text);
const out = cases.map(({ model, context, maxTokens }) =>
  clampMaxTokensToContext(model, normalizeContext(context), maxTokens ?? model.maxTokens),
);
process.stdout.write(JSON.stringify(out));
