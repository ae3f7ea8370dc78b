import { slumpCommand } from './slump.js';

/** The CLI commands this package adds (declared under "longhaul" in package.json). */
export default [slumpCommand];
