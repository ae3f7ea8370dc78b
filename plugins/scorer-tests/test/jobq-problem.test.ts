import { describeSolvable } from './solvable.js';

// The job-queue HTTP problem: every reference solution passes its own and earlier steps' cases,
// and each earlier solution fails the next step.
describeSolvable('jobq', ['jobs', 'scheduling', 'redelivery', 'queues']);
