/**
 * The check every recipe test makes of its schema against the library's: each field the recipe derives from a
 * library field keeps that field's description and type, and its default unless the recipe lists an override.
 */
import { type ConfigField, configFields } from '@cookbook/core';
import { expect } from 'vitest';
import type { z } from 'zod';

/** A schema's fields by snake_case key. */
export function fieldsOf(schema: z.ZodType): Map<string, ConfigField> {
  return new Map(configFields(schema, { keyStyle: 'snake_case' }).map((f) => [f.path, f]));
}

/** What {@link expectDerivedFields} compares against. */
export interface DerivedFieldsOptions {
  /**
   * Recipe defaults that differ from the library's on purpose (snake_case key → the recipe's default), e.g. short
   * offline runs on a tiny model. A key listed here must be a derived field whose default really differs.
   */
  defaults?: Record<string, unknown>;
  /** Fields whose default is not compared at all (e.g. `log_path`, a folder per recipe). */
  anyDefault?: readonly string[];
}

/**
 * Asserts that every recipe field found in `library` (snake_case key → the library field it derives from) has the
 * library field's description, type and default (or the listed override). Returns the keys compared.
 */
export function expectDerivedFields(
  recipe: z.ZodType,
  library: ReadonlyMap<string, ConfigField>,
  options: DerivedFieldsOptions = {},
): string[] {
  const defaults = options.defaults ?? {};
  const compared: string[] = [];
  for (const f of configFields(recipe, { keyStyle: 'snake_case' })) {
    const lib = library.get(f.path);
    if (lib === undefined) continue;
    compared.push(f.path);
    expect(f.description, `${f.path}: description`).toBe(lib.description);
    expect(f.type, `${f.path}: type`).toBe(lib.type);
    if (options.anyDefault?.includes(f.path)) continue;
    if (f.path in defaults) {
      expect(f.defaultValue, `${f.path}: listed recipe default`).toEqual(defaults[f.path]);
      expect(f.defaultValue, `${f.path}: listed as an override but equal to the library's`).not.toEqual(
        lib.defaultValue,
      );
    } else {
      expect(f.defaultValue, `${f.path}: default`).toEqual(lib.defaultValue);
    }
  }
  for (const key of Object.keys(defaults)) expect(compared, `override of ${key}: not a derived field`).toContain(key);
  return compared;
}
