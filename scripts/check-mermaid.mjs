// Parses every ```mermaid block of the given markdown files with the real mermaid parser
// (mermaid and jsdom, installed by .ci/run under target/). Fails on a block that does not
// parse, and on finding no block at all: a check that checked nothing is no check.
//
//   MERMAID_MODULES=target/ci-tools/mermaid/node_modules node scripts/check-mermaid.mjs FILE.md...
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const modules = process.env.MERMAID_MODULES;
if (!modules) {
  console.error('check-mermaid: set MERMAID_MODULES to the node_modules holding mermaid and jsdom');
  process.exit(2);
}
const require = createRequire(resolve(modules, 'noop.js'));
const { JSDOM } = require('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import(require.resolve('mermaid'));
mermaid.initialize({ startOnLoad: false });

let blocks = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  const re = /^```mermaid\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(re)) {
    blocks += 1;
    const line = text.slice(0, m.index).split('\n').length;
    try {
      const r = await mermaid.parse(m[1]);
      if (!r || r.diagramType !== 'xychart') {
        throw new Error(`parsed as ${r && r.diagramType}, not xychart`);
      }
    } catch (e) {
      failed += 1;
      console.error(`${file}:${line}: ${String(e.message || e).split('\n').slice(0, 3).join(' ')}`);
    }
  }
}
if (blocks === 0) {
  console.error('check-mermaid: no mermaid block found in', process.argv.slice(2).join(' '));
  process.exit(1);
}
console.log(`check-mermaid: ${blocks} mermaid block(s), ${failed} failed`);
process.exit(failed ? 1 : 0);
