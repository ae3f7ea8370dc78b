import { describeSolvable } from './solvable.js';

// The job-queue HTTP problem: every reference solution passes its own and earlier steps' cases,
// and each earlier solution fails the next step.
// Each HTTP case starts a server that must accept connections within 10 s: on a busy 2-core
// machine, 16 servers starting at once miss that, so four at a time (the scorer's default).
describeSolvable('jobq', ['jobs', 'scheduling', 'redelivery', 'queues'], {
  concurrency: 4,
  timeout: 600_000,
});
