import { sweStepsCommand } from './swe-steps.js';

/** The CLI commands this package adds (declared under "longhaul" in package.json). */
export default [sweStepsCommand];
