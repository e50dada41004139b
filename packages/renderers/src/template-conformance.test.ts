/**
 * Conformance of every renderer name with its model's official chat template (the rows of
 * `__fixtures__/conformance-rows.ts`): seeded generated conversations (`internal/conformance.ts`: system prompt or
 * none, 1–3 turns, reasoning in the last and earlier turns, tools declared, single and parallel tool calls, tool
 * results, empty texts, Unicode, every fourth quoting the control strings the template writes, images in user
 * messages for the vision names, one call per message for gpt-oss), generation prompt and supervised example compared
 * token for token with the template run by @huggingface/jinja and encoded by the tokenizer. The only differences
 * allowed are the row's documented, deliberate ones (for gpt-oss, marked by a patched copy of its template:
 * `__fixtures__/gpt-oss.ts`). Every row runs its whole series of {@link CONVERSATIONS}, the README's table
 * (`pnpm --filter @cookbook/renderers conformance` prints it).
 */
import { describe, expect, it } from 'vitest';
import { allowedReasons, CONFORMANCE_ROWS, rowConformance } from './__fixtures__/conformance-rows.js';
import { runConformance } from './internal/conformance.js';

/** Conversations per row in CI (the whole seeded series of the README's table). */
const CONVERSATIONS = 500;
/** Conversations per row whose reference text is also encoded whole (checks the piecewise encoding). */
const VERIFIED = 40;

describe('every renderer name against its official template', () => {
  for (const row of CONFORMANCE_ROWS) {
    it(`${row.name} (${row.label}): ${CONVERSATIONS} generated conversations, no undocumented difference`, () => {
      const conf = rowConformance(row);
      conf.verifyEncoding = VERIFIED;
      const counts = runConformance(conf, CONVERSATIONS, 46);
      expect(counts.firstDifference, JSON.stringify(counts.firstDifference, null, 1)).toBeUndefined();
      // Not vacuous: some conversation matches exactly (or, where the row rewrites every reference text, the rewrite
      // applies: gpt_oss_no_sysprompt drops the system message the template always writes).
      if (row.spec.rewrite === undefined) expect(counts.identical).toBeGreaterThan(0);
      else expect(counts.deliberate[row.spec.rewrite.reason]).toBeGreaterThan(0);
      for (const reason of Object.keys(counts.deliberate)) expect(allowedReasons(row)).toContain(reason);
    });
  }
});
