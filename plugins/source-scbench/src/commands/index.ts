import { scbenchCommand } from './scbench.js';

/** The CLI commands this package adds (declared under "longhaul" in package.json). */
export default [scbenchCommand];
