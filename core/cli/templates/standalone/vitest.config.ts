import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: conformance checks wait for real turns and sandboxes on a busy machine.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
