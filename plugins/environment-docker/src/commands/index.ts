import { imagesCommand } from './images.js';
import { pruneCommand } from './prune.js';

/** The CLI commands this package adds (declared under "longhaul" in package.json). */
export default [imagesCommand, pruneCommand];
