#!/usr/bin/env node
import { CookbookError } from '@cookbook/core';
import { runCli } from './cli.js';
import { recipes } from './recipes.js';

const io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t) };
try {
  process.exitCode = await runCli(process.argv.slice(2), recipes, io);
} catch (err) {
  if (err instanceof CookbookError) {
    console.error(`cookbook: ${err.name}: ${err.message}`);
    process.exitCode = 1;
  } else {
    throw err;
  }
}
