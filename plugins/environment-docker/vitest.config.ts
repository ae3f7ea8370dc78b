import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// Most of these tests wait on the Docker daemon, not on a core: three files at a time. Each file
// names its own runs, networks and containers, so they share nothing but the daemon.
export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 3 } }));
