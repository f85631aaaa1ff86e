// File names for per-key side-effect markers. Pure.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { InternalError } from '../../contracts/errors.js';
import type { AdapterOp } from '../../contracts/vocabulary.js';
import type { RequestKind } from '../../contracts/request.js';

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;
/** Room for `.redispatch.json` within the usual 255-byte file-name limit. */
const MAX_NAME = 200;

/** `PROJ-1:t1:redispatch` → `PROJ-1__t1__redispatch`: an idempotency key as one safe file-name segment. */
export function keyToFileName(key: string): string {
  const name = key.replaceAll(':', '__');
  if (!SAFE_NAME.test(name)) {
    throw new InternalError(`idempotency key ${JSON.stringify(key)} cannot name a file: expected "<epic>:<task_id>:<action>" made of safe ids.`);
  }
  // Two 128-character ids make a name too long for most file systems: keep a prefix and a hash of the whole key.
  if (name.length > MAX_NAME) return `${name.slice(0, MAX_NAME - 17)}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  return name;
}

/** The marker of one step of one key: `<dir>/<key-as-file-name>.<op>.json`; one key may cover a stop and a launch. */
export function stepFile(dir: string, key: string, op: AdapterOp | RequestKind): string {
  return path.join(dir, `${keyToFileName(key)}.${op}.json`);
}
