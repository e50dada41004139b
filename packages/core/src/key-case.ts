/**
 * The one mapping between the command line's snake_case keys (the Python cookbook's spelling, also used in
 * `config.json`) and the camelCase keys of the library config schemas. Mechanical and reversible for the keys the
 * schemas use: words are lower-case ASCII letters and digits (`learningRate` ⇄ `learning_rate`,
 * `adamBeta1` ⇄ `adam_beta1`).
 */

/** `learningRate` → `learning_rate`; a key that is already snake_case is returned as it is. */
export function toSnakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** `learning_rate` → `learningRate`; a key that is already camelCase is returned as it is. */
export function toCamelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
