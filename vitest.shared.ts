import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their TypeScript sources (the "@longhaul/source" export
// condition), so a change in one package is seen by another's tests without a rebuild.
export default defineConfig({
  resolve: { conditions: ['@longhaul/source'] },
  ssr: { resolve: { conditions: ['@longhaul/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Each run's temp folder, removed at its end: tests leave nothing in the system's.
    globalSetup: [fileURLToPath(new URL('./vitest.tmpdir.ts', import.meta.url))],
  },
});
