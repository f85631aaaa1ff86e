// What the watch hands the telemetry exporter (act/telemetry/otel.ts): events and check figures. Types only.
import type { DispatchEvent } from '../../contracts/events.js';
import type { VerdictKind } from '../../contracts/vocabulary.js';

/** One check's figures for the gauges and the duration histogram. */
export interface CheckFigures {
  epicId: string;
  verdicts: readonly VerdictKind[];
  pendingRequests: number;
  durationMs: number;
}

/** Where events and checks go; shutdown flushes what is batched. */
export interface TelemetrySink {
  onEvent(e: DispatchEvent): void;
  onCheck(c: CheckFigures): void;
  shutdown(): Promise<void>;
}
