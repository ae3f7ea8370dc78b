#!/usr/bin/env node
// Self time by function of a V8 CPU profile (`node --cpu-prof`): the top N functions with their
// self time and share of the sampled time. `node bench/quality/profile-top.mjs FILE.cpuprofile [N]`
import { readFileSync } from 'node:fs';

const [file, count = '15'] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-top.mjs FILE.cpuprofile [N]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// Each sample lands on one node; the time until the next sample is that node's self time.
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + delta);
}
const byFunction = new Map();
let total = 0;
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const where = callFrame.url
    ? `${callFrame.url.replace(/^.*\/(?=[^/]+\/[^/]+$)/, '')}:${callFrame.lineNumber + 1}`
    : '';
  const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  total += us;
}
const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(count));
console.log(`sampled ${(total / 1e6).toFixed(2)} s on the main thread`);
for (const [key, us] of rows)
  console.log(
    `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`,
  );
