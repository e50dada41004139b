/**
 * Untrusted text (a dataset line, a server's message, a file name) printed to a terminal must not drive it: an ESC
 * sequence can clear the screen, retitle the window or hide what follows, BEL rings. {@link escapeControlChars}
 * shows such characters as escapes instead.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides/isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's job
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with control characters written as `\xNN` / `\uNNNN` (ESC → `\x1b`, BEL → `\x07`, CR → `\x0d`); tab and
 * newline stay (messages span lines), unless `singleLine` escapes them too.
 */
export function escapeControlChars(text: string, options: { singleLine?: boolean } = {}): string {
  const out = text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return options.singleLine === true ? out.replace(/\n/g, '\\n').replace(/\t/g, '\\t') : out;
}
