import type { Container } from 'inversify';
import type { PluginKind, PluginRef, RunEvent } from '../contracts/index.js';
import type { RunStore } from '../store/run-store.js';

/** The part of the plugin registry the runner uses to make plugin instances. */
export interface PluginInstantiator {
  /** A child container of `parent` with the plugin registered with `ref.options`; its contract instance. */
  instantiate<T>(parent: Container, kind: PluginKind, ref: PluginRef): T;
}

/** Everything `runTrial` needs besides the spec; a worker process builds its own. */
export interface TrialServices {
  /** The experiment container, with tokens.Run, tokens.SnapshotStore, tokens.Logger (and tokens.Gateway) bound. */
  container: Container;
  plugins: PluginInstantiator;
  store: RunStore;
  emit(event: RunEvent): void;
  /** `stopSignal`: start no new turn; `abortSignal`: abort running turns with `cancelled`. */
  cancellation: { stopSignal: AbortSignal; abortSignal: AbortSignal };
  /** How long a harness gets to end its turn after an abort before it is abandoned (default 5000 ms). */
  abandonMs?: number;
  /** Called once a harness prepared a sandbox, with what goes into lock.json. */
  onPrepared?(harnessLabel: string, info: Record<string, unknown>): void;
}
