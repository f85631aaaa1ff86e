// Builders for ActionOutcome, so every adapter reports success and failure in the same shape. Pure.
import type { AdapterName, AdapterOp } from '../../contracts/vocabulary.js';
import type { ActionOutcome, OutcomeCode } from './adapter.js';

type Extra = Partial<Pick<ActionOutcome, 'wasForced' | 'wasAlreadyDone' | 'markerPath' | 'requestPath' | 'answerBy'>>;

/** A step that succeeded now (or had already happened, with `wasAlreadyDone`). */
export function succeeded(kind: AdapterOp, adapter: AdapterName, detail: string, extra: Extra = {}): ActionOutcome {
  return { kind, adapter, ok: true, retryable: false, wasForced: false, wasAlreadyDone: false, detail, ...extra };
}

/** A step that did not happen (or may not have): `retryable` says whether trying again is safe. */
export function failed(
  kind: AdapterOp,
  adapter: AdapterName,
  code: OutcomeCode,
  detail: string,
  opts: { retryable?: boolean; markerPath?: string } = {},
): ActionOutcome {
  return { kind, adapter, ok: false, code, retryable: opts.retryable ?? false, wasForced: false, wasAlreadyDone: false, detail, markerPath: opts.markerPath };
}

/** The outcome when a marker says "cannot tell": never fire again, surface it as an orphan. */
export function orphan(kind: AdapterOp, adapter: AdapterName, detail: string, markerPath?: string): ActionOutcome {
  return failed(kind, adapter, 'orphan', `${detail} Not fired again; check by hand and then append the outcome.`, { markerPath });
}

/** An unexpected file-system error while writing a marker or request: retry later. */
export function ioFailure(kind: AdapterOp, adapter: AdapterName, what: string, e: unknown, markerPath?: string): ActionOutcome {
  const err = e as NodeJS.ErrnoException;
  const code = err?.code ? `${err.code}: ` : '';
  return failed(kind, adapter, 'io_error', `${what} failed: ${code}${err?.message ?? String(e)}.`, { retryable: true, markerPath });
}
