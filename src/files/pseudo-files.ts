// Files the watchdog never reads as evidence or input: anything under /proc, /sys or /dev (an
// environment such as /proc/self/environ holds the API keys; a device can block or never end).
// A path that resolves there, through symlinks or not, is refused before its first byte is read.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'] as const;

let rootDevices: Set<number> | undefined;
/** The devices of /proc and /sys themselves (a file on them has their st_dev, whatever path named it). */
function pseudoDevices(): ReadonlySet<number> {
  if (rootDevices) return rootDevices;
  rootDevices = new Set();
  for (const root of ['/proc', '/sys']) {
    try {
      rootDevices.add(statSync(root).dev);
    } catch {
      // not on this platform
    }
  }
  return rootDevices;
}

/**
 * Why `file` must not be read (it resolves under /proc, /sys or /dev, or lives on their file
 * systems: pass its stat's `dev` when you have it), or undefined for an ordinary path. A path that
 * does not exist is left to the caller's own not-found handling.
 */
export function pseudoFileReason(file: string, dev?: number): string | undefined {
  let real: string;
  try {
    real = realpathSync.native(path.resolve(file));
  } catch {
    real = path.resolve(file);
  }
  const root = PSEUDO_ROOTS.find((r) => real === r || real.startsWith(r + '/'));
  if (root || (dev !== undefined && isPseudoDevice(dev))) return refusal(file, real, root);
  return undefined;
}

/** True for a file on /proc's or /sys's own file system (a stat's `dev`): the cheap check of an opened file. */
export function isPseudoDevice(dev: number): boolean {
  return pseudoDevices().has(dev);
}

/** The refusal of a file on /proc or /sys found by its device alone. */
export function pseudoDeviceReason(file: string): string {
  return refusal(file, file, undefined);
}

function refusal(file: string, real: string, root: string | undefined): string {
  const where = real === path.resolve(file) ? '' : ` (it resolves to ${real})`;
  return `refusing to read ${file}${where}: a ${root ?? '/proc or /sys'} file is no state file, config or transcript, and may hold secrets (a process's environment)`;
}
