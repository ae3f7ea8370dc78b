import { parentPort, workerData } from 'node:worker_threads';
import { analyzeSources } from './batch.js';
import type { SourceFile } from './discovery.js';
import type { MetricsOptions } from './options.js';

/** One worker thread of `analyzeSources` with `threads` > 1: analyzes its share of the files. */
const { sources, options } = workerData as { sources: SourceFile[]; options: MetricsOptions };
parentPort!.postMessage(await analyzeSources(sources, options));
