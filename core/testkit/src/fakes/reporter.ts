import type { ReportContext, Reporter, StampedRunEvent } from '@longhaul/core';

/** A reporter that keeps what it was given: every run event and each `finish` context. */
export class RecordingReporter implements Reporter {
  readonly events: StampedRunEvent[] = [];
  readonly reports: ReportContext[] = [];

  onEvent(event: StampedRunEvent): void {
    this.events.push(event);
  }

  async finish(ctx: ReportContext): Promise<void> {
    this.reports.push(ctx);
  }

  /** Events of one type, in order. */
  ofType<T extends StampedRunEvent['type']>(type: T): Extract<StampedRunEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<StampedRunEvent, { type: T }> => event.type === type);
  }
}
