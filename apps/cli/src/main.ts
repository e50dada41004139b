#!/usr/bin/env node
import { stopEmbeddedService } from '@cookbook/local-tinker';
import { printAboveProgress } from '@cookbook/logging';
import { runCli } from './cli.js';
import { describeFailure } from './errors.js';
import { recipes } from './recipes.js';

// A recipe's own lines (per-step summaries, notices) go above a progress line drawing on the terminal.
const io = {
  out: (t: string) => printAboveProgress(() => console.log(t)),
  err: (t: string) => printAboveProgress(() => console.error(t)),
};
let code = 1;
try {
  code = await runCli(process.argv.slice(2), recipes, io);
} catch (err) {
  const failure = describeFailure(err);
  if (failure === undefined) throw err;
  console.error(failure.line);
  code = failure.exitCode;
}
// Recipes close their clients (the embedded service stops with the last one); stop it anyway if a recipe failed
// before closing, so the process ends by itself.
await stopEmbeddedService({ graceMs: 0 });
process.exitCode = code;
