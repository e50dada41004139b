/**
 * The README's conformance table: 500 seeded conversations per row of the conformance suite (the series the CI test
 * runs). Prints one Markdown row per renderer name and template, and the CPU time.
 * Run: pnpm --filter @cookbook/renderers conformance [renderer name …] (default: every row)
 */
import { allowedReasons, CONFORMANCE_ROWS, rowConformance } from '../src/__fixtures__/conformance-rows.js';
import { runConformance } from '../src/internal/conformance.js';

const COUNT = 500;
/** Conversations per row whose reference text is also encoded whole (`VERIFY=500` checks every one). */
const VERIFY = Number(process.env.VERIFY ?? 40);
const started = process.cpuUsage();
let failed = false;
process.stdout.write('| renderer name | template | conversations | identical | deliberate differences |\n');
process.stdout.write('| --- | --- | ---: | ---: | --- |\n');
const only = process.argv.slice(2);
for (const row of CONFORMANCE_ROWS.filter((r) => only.length === 0 || only.includes(r.name))) {
  const conf = rowConformance(row);
  conf.verifyEncoding = VERIFY;
  const counts = runConformance(conf, COUNT, 46);
  const deliberate = Object.entries(counts.deliberate)
    .map(([reason, n]) => `${n} ${reason}`)
    .join('; ');
  const bad = Object.keys(counts.deliberate).filter((r) => !allowedReasons(row).includes(r));
  const note =
    counts.firstDifference === undefined
      ? ''
      : ` **undocumented difference at conversation ${counts.firstDifference.index}**`;
  if (counts.firstDifference !== undefined || bad.length > 0) failed = true;
  process.stdout.write(
    `| \`${row.name}\` | ${row.label} | ${counts.conversations} | ${counts.identical} | ${deliberate || 'none'}${note} |\n`,
  );
}
const cpu = process.cpuUsage(started);
process.stdout.write(`\nCPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s\n`);
if (failed) process.exitCode = 1;
