#!/usr/bin/env node
import { CookbookError } from '@cookbook/core';
import { stopEmbeddedService } from '@cookbook/local-tinker';
import { runCli } from './cli.js';
import { recipes } from './recipes.js';

const io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t) };
let code = 1;
try {
  code = await runCli(process.argv.slice(2), recipes, io);
} catch (err) {
  if (!(err instanceof CookbookError)) throw err;
  console.error(`cookbook: ${err.name}: ${err.message}`);
}
// The embedded service (if a recipe started one) holds keep-alive sockets; stop it so the process can end.
await stopEmbeddedService();
process.exitCode = code;
// Any socket left open by a client pool would keep the process alive for its keep-alive timeout.
setTimeout(() => process.exit(code), 500).unref();
