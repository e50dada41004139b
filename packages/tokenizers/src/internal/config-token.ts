/**
 * A token tokenizer_config.json names (`bos_token`, `eos_token`, …): written as the token's string, or as an added
 * token's object whose `content` is the string; undefined for anything else.
 */
export function configTokenString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return undefined;
}
