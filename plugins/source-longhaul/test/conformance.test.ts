import { join } from 'node:path';
import { describeSource } from '@longhaul/testkit';
import { LonghaulSource } from '../src/index.js';

describeSource('longhaul', () => new LonghaulSource({ path: 'problems' }), {
  baseDir: join(import.meta.dirname, '../../..'),
});
