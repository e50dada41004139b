/**
 * Argument handling for `cookbook <recipe> key=value …`: recipe lookup, `--help` at both levels, config
 * parsing with errors that name the key and suggest the closest one. This is the one place where command-line keys
 * (snake_case, the Python cookbook's spelling) are mapped onto the recipes' schemas (camelCase, derived from the
 * library schemas).
 */

import {
  ConfigError,
  clearInterruption,
  closestMatch,
  configHelp,
  findModel,
  interruptionSignal,
  parseConfig,
  signalExitCode,
} from '@cookbook/core';
import { getRegisteredRendererNames } from '@cookbook/renderers';
import { loadTokenizer } from '@cookbook/tokenizers';
import { describeFailure } from './errors.js';
import type { Recipe, RecipeIO } from './recipe.js';
import { ensureRendererPlugin, extractRendererPackage } from './renderer-plugins.js';

/** The usage text listing every recipe. */
export function usage(recipes: readonly Recipe[]): string {
  const width = Math.max(8, ...recipes.map((r) => r.name.length));
  return [
    'Usage: cookbook <recipe> [key=value ...]',
    '       cookbook <recipe> --help',
    '',
    'Recipes:',
    ...recipes.map((r) => `  ${r.name.padEnd(width)}  ${r.description}`),
    '',
    'With no TINKER_API_KEY / TINKER_BASE_URL set, recipes run on the embedded local service.',
  ].join('\n');
}

/** The registered renderer names (built-in ones, then plugins imported so far), wrapped, for `--help`. */
export function rendererNamesHelp(): string {
  const lines = ['', "renderer_name values (default: the model's recommended renderer):"];
  let line = ' ';
  for (const name of getRegisteredRendererNames()) {
    if (line.length + name.length + 2 > 100) {
      lines.push(line.trimEnd().replace(/,$/, ','));
      line = ' ';
    }
    line += ` ${name},`;
  }
  lines.push(line.replace(/,$/, ''));
  return lines.join('\n');
}

/**
 * Leading arguments without `=` become `key=value` for the recipe's positional keys, in order; `--json` is
 * `json=true` for a recipe with a `json` key.
 */
function withPositionals(recipe: Recipe, args: readonly string[]): string[] {
  const keys = recipe.positionals ?? [];
  const hasJson = 'json' in ((recipe.schema as unknown as { shape?: object }).shape ?? {});
  const out = args.map((a) => (a === '--json' && hasJson ? 'json=true' : a));
  for (let i = 0; i < out.length && i < keys.length; i++) {
    const a = out[i]!;
    if (a.includes('=') && !a.startsWith('tinker://')) break;
    if (a.startsWith('-')) break;
    out[i] = `${keys[i]}=${a}`;
  }
  return out;
}

/**
 * Run the CLI with `argv` (without node and script). Returns the process exit code: 0, 1 (a failure), 2 (a usage
 * error), or 130 / 143 when a run was interrupted by SIGINT / SIGTERM (it saved and reported, but did not finish:
 * `cookbook sl_basic … && cookbook eval …` must not go on).
 */
export async function runCli(argv: readonly string[], recipes: readonly Recipe[], io: RecipeIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage(recipes));
    return name === undefined ? 1 : 0;
  }
  const recipe = recipes.find((r) => r.name === name);
  if (recipe === undefined) {
    const hint = closestMatch(
      name,
      recipes.map((r) => r.name),
    );
    io.err(`cookbook: unknown recipe "${name}"${hint ? `; did you mean "${hint}"?` : ''}\n\n${usage(recipes)}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(
      configHelp(recipe.schema, `cookbook ${recipe.name}: ${recipe.description}\n\nOptions (key=value):`, {
        keyStyle: 'snake_case',
      }),
    );
    if ('rendererName' in (recipe.schema as unknown as { shape?: object }).shape!) {
      io.out(
        `  renderer_package  string  (optional)\n  ${' '.repeat(16)}  A renderer package to import (name or path); ` +
          'renderer_name=foo also finds an installed cookbook-renderer-foo',
      );
      io.out(rendererNamesHelp());
    }
    if (recipe.notes !== undefined) io.out(`\n${recipe.notes}`);
    return 0;
  }
  let config: unknown;
  try {
    const { args, rendererPackage } = extractRendererPackage(withPositionals(recipe, rest));
    config = parseConfig(recipe.schema, args, {}, { keyStyle: 'snake_case' });
    const rendererName = (config as { rendererName?: unknown }).rendererName;
    if (rendererPackage !== null || typeof rendererName === 'string') {
      await ensureRendererPlugin(typeof rendererName === 'string' ? rendererName : null, rendererPackage);
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`cookbook ${recipe.name}: ${err.message}\nRun "cookbook ${recipe.name} --help" to list the options.`);
      return 2;
    }
    throw err;
  }
  clearInterruption();
  try {
    // A tokenizer that only the Hugging Face Hub has (Kimi, Nemotron, Qwen3.5 …) is fetched once, before the run, so
    // every part of the recipe that resolves the model's setup offline finds it (in memory and in the Hub cache).
    const modelName = (config as { modelName?: unknown }).modelName;
    if (typeof modelName === 'string' && findModel(modelName)?.tokenizer.kind === 'hub') await loadTokenizer(modelName);
    await recipe.run(config, io);
  } catch (err) {
    // A failure users cause (a bad path, a port in use, bad data) is one line; a bug keeps its stack trace.
    const failure = describeFailure(err);
    if (failure === undefined) throw err;
    io.err(failure.line);
    const signal = interruptionSignal();
    return signal === undefined ? failure.exitCode : signalExitCode(signal);
  }
  const signal = interruptionSignal();
  return signal === undefined ? 0 : signalExitCode(signal);
}
