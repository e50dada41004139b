import type { TextSink } from '@cookbook/logging';

/**
 * A fake terminal: a TTY sink that applies what the progress bar writes (`\r`, erase-line `\x1b[K`, `\n`) to its
 * screen, so a test sees the lines a user would see. `writes` counts the chunks written.
 */
export function fakeTerminal(columns = 120): TextSink & { screen: () => string[]; writes: () => number } {
  const lines: string[] = [''];
  let col = 0;
  let writes = 0;
  return {
    isTTY: true,
    columns,
    write(text: string) {
      writes++;
      for (let i = 0; i < text.length; i++) {
        const ch = text[i]!;
        if (text.startsWith('\x1b[K', i)) {
          lines[lines.length - 1] = lines.at(-1)!.slice(0, col);
          i += 2;
        } else if (ch === '\r') {
          col = 0;
        } else if (ch === '\n') {
          lines.push('');
          col = 0;
        } else {
          const cur = lines.at(-1)!;
          lines[lines.length - 1] = cur.slice(0, col) + ch + cur.slice(col + 1);
          col++;
        }
      }
      return true;
    },
    screen: () => (lines.at(-1) === '' ? lines.slice(0, -1) : [...lines]),
    writes: () => writes,
  };
}
