/**
 * The true-thinking-score page: the aggregate, then each problem's steps in order, each on a background whose
 * colour runs from white (score 0, decorative) to red (score ≥ 0.7), with its score and four confidences on hover.
 * Self-verification steps are outlined; dropped steps (no number to perturb) are marked. One self-contained file.
 */
import type { TTSResult } from './tts-score.js';

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The background of a step: white at 0, full red at 0.7 and above (upstream's "high" threshold). */
export function ttsColour(tts: number): string {
  const t = Math.max(0, Math.min(1, (Number.isFinite(tts) ? tts : 0) / 0.7));
  const gb = Math.round(255 - 175 * t);
  return `rgb(255, ${gb}, ${gb})`;
}

/** The whole page. */
export function ttsHtml(model: string, results: readonly TTSResult[], aggregate: Record<string, number>): string {
  const rows = Object.entries(aggregate)
    .map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${Number.isInteger(v) ? v : v.toFixed(4)}</td></tr>`)
    .join('');
  const problems = results
    .map((r, i) => {
      const head = `<h2>Problem ${i + 1}</h2><p class="q">${escapeHtml(r.question)}</p><p>Answer: <b>${escapeHtml(r.answer)}</b>${
        r.skipped === undefined ? ` · P(answer | whole reasoning) ${(r.steps.at(-1)?.s1c1 ?? 0).toFixed(4)}` : ''
      }</p>`;
      if (r.skipped !== undefined) {
        const why = r.skipped === 'no_numbers' ? 'its reasoning has no number to perturb' : 'it has no reasoning';
        return `${head}<p class="skip">Skipped: ${why}.</p><pre>${escapeHtml(r.cotText)}</pre>`;
      }
      const steps = r.steps
        .map(
          (s) =>
            `<div class="step${s.isSelfVerification ? ' sv' : ''}" style="background:${ttsColour(s.tts)}" title="TTS ${s.tts.toFixed(4)} · S1(1) ${s.s1c1.toFixed(4)} S0(1) ${s.s0c1.toFixed(4)} S1(0) ${s.s1c0.toFixed(4)} S0(0) ${s.s0c0.toFixed(4)}"><span class="score">${s.tts.toFixed(3)}${s.dropped ? ' · dropped' : ''}${s.isSelfVerification ? ' · self-check' : ''}</span>${escapeHtml(s.stepText)}</div>`,
        )
        .join('');
      return `${head}${steps}`;
    })
    .join('');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>True-thinking score: ${escapeHtml(model)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:900px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse}td{border:1px solid #ccc;padding:2px 8px}
.step{white-space:pre-wrap;padding:6px 8px;margin:4px 0;border-radius:4px;border:1px solid #ddd}
.step.sv{border:2px solid #36c}.score{float:right;font-size:80%;color:#333;margin-left:1em}
.skip{color:#a60}.q{font-style:italic}
</style></head><body>
<h1>True-thinking score</h1>
<p>Model: ${escapeHtml(model)}. Each step's colour shows its score, TTS = ½(|S1(1) − S0(1)| + |S1(0) − S0(0)|): white
is 0 (decorative), red is 0.7 or more. Hover a step for its four confidences; blue outlines mark self-verification steps.</p>
<table>${rows}</table>
${problems}
</body></html>
`;
}
