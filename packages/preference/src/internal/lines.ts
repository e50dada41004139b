import { readFileSync } from 'node:fs';

/** The lines of a (small) text file with their 1-based numbers, line endings removed. */
export function* readLinesSync(path: string): Generator<{ text: string; line: number }> {
  const lines = readFileSync(path, 'utf8').split('\n');
  for (const [i, raw] of lines.entries()) {
    if (i === lines.length - 1 && raw === '') break;
    yield { text: raw.endsWith('\r') ? raw.slice(0, -1) : raw, line: i + 1 };
  }
}
