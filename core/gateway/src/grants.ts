import { randomBytes } from 'node:crypto';

/** What a token allows: one model, on behalf of one trial. */
export interface Grant {
  trialId: string;
  model: string;
}

/**
 * The gateway's tokens. Each is bound to one trial and one model, so a token handed into a
 * sandbox for the agent's model cannot reach the oracle, a judge's model or a provider model the
 * trial was not given; `revoke` ends every token of a trial at once.
 */
export class Grants {
  private readonly byToken = new Map<string, Grant>();
  /** trial → model → token */
  private readonly byTrial = new Map<string, Map<string, string>>();

  /** The trial's token for `model`: a new one the first time, the same one after. */
  issue(trialId: string, model: string): string {
    let models = this.byTrial.get(trialId);
    if (!models) {
      models = new Map();
      this.byTrial.set(trialId, models);
    }
    let token = models.get(model);
    if (!token) {
      token = `lh-${randomBytes(24).toString('hex')}`;
      models.set(model, token);
      this.byToken.set(token, { trialId, model });
    }
    return token;
  }

  /** What a token allows, or undefined for a token never issued or already revoked. */
  check(token: string): Grant | undefined {
    return this.byToken.get(token);
  }

  revoke(trialId: string): void {
    for (const token of this.byTrial.get(trialId)?.values() ?? []) this.byToken.delete(token);
    this.byTrial.delete(trialId);
  }
}
