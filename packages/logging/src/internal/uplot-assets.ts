import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let cached: { js: string; css: string } | undefined;

/** uPlot's browser build and stylesheet, read from the installed `uplot` package, to inline into report.html. */
export function uplotAssets(): { js: string; css: string } {
  if (!cached) {
    const require = createRequire(import.meta.url);
    const js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
    const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
    // A literal "</script" inside the inlined code would end the element early.
    cached = { js: js.replace(/<\/script/gi, '<\\/script'), css: css.replace(/<\/style/gi, '<\\/style') };
  }
  return cached;
}
