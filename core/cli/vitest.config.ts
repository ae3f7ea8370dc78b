import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The CLI's test files each drive the real command in their own folders and share nothing in
// process: two at a time. They are the longest package and `npm test` reaches them last, when
// the other packages no longer use the second core.
export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 2 } }));
