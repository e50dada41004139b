/** Reading an episode's observation history, shared by the scripted players. */

/** Joins a history given as one string or a list of observations. */
export function historyText(history: string | readonly string[]): string {
  return typeof history === 'string' ? history : history.join('\n');
}

/** The lines after the last `marker` in the text, up to the first blank line. */
export function lastBlock(text: string, marker: string): string[] {
  const at = text.lastIndexOf(marker);
  if (at < 0) return [];
  const lines = text.slice(at + marker.length).split('\n');
  const end = lines.findIndex((l) => l.trim() === '');
  return end < 0 ? lines : lines.slice(0, end);
}
