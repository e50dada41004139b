/**
 * Scripted players for warm starts and demonstrations: each reads the observation history of an episode (the
 * reset observation, then every step observation, as separate strings or already concatenated) and returns the
 * next action as a `\boxed{…}` string. They read only what a model sees, never the env's hidden state.
 */

/** Joins a history given as one string or a list of observations. */
function historyText(history: string | readonly string[]): string {
  return typeof history === 'string' ? history : history.join('\n');
}

/**
 * Bisection for GuessTheNumber: keeps the interval allowed by the range in the instructions and every
 * `higher`/`lower` hint, and guesses its midpoint (rounded down). Finds any target in ⌈log2(max - min + 1)⌉ guesses.
 */
export function guessTheNumberPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const range = /guess the number between (\d+) and (\d+)/.exec(text);
  let lo = range ? Number(range[1]) : 1;
  let hi = range ? Number(range[2]) : 100;
  for (const m of text.matchAll(/you guessed (\d+), and the target number is (higher|lower) than \d+/g)) {
    const g = Number(m[1]);
    if (m[2] === 'higher') lo = Math.max(lo, g + 1);
    else hi = Math.min(hi, g - 1);
  }
  if (hi < lo) hi = lo;
  return `\\boxed{${Math.floor((lo + hi) / 2)}}`;
}
