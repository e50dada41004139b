import { CONFORMANCE_ROWS, rowConformance } from '../src/__fixtures__/conformance-rows.js';
import { runConformance } from '../src/internal/conformance.js';

const [name, label] = process.argv.slice(2);
const row = CONFORMANCE_ROWS.find((r) => r.name === name && (label === undefined || r.label.includes(label)))!;
const c = runConformance(rowConformance(row), Number(process.env.N ?? 500), 46);
const d = c.firstDifference;
console.log(c.identical, c.deliberate, c.different);
if (d) {
  console.log(JSON.stringify(d.conversation.messages.at(-1)));
  console.log(d.verdict.where);
  console.log('WANT', JSON.stringify(d.verdict.expected));
  console.log('GOT ', JSON.stringify(d.verdict.got));
}
