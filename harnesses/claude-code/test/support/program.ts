import { prerequisite } from '@longhaul/testkit/prerequisites';

/**
 * Whether the real agent program a harness runs is installed: its native binary comes in an
 * optional dependency of the npm package, which `npm ci --omit=optional` (or another platform's
 * lockfile) leaves out. Without it the tests of the real CLI skip, or fail under CI.
 */
export function programReady(name: string, npmPackage: string, binary: () => string): boolean {
  return prerequisite({
    name: `the ${name} program`,
    install: `run \`npm ci\` without --omit=optional, which installs ${npmPackage}'s native binary`,
    probe: () => {
      try {
        binary();
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
}
