// Real headless Chromium (Debian's `chromium` package) for tests that check what a browser draws
// from a file we write: a screenshot, decoded to pixels. Absent Chromium, tests skip and say why.
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';

/** The Chromium binary, if installed. */
export function findChromium(): string | undefined {
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
}

export const CHROMIUM_MISSING = 'headless Chromium is not installed (apt-get install -y chromium; .ci/run installs it): skipped';

/** Render `file` in headless Chromium at width × height and return the screenshot's pixels. */
export async function screenshot(file: string, width: number, height: number): Promise<Pixels> {
  const bin = findChromium();
  if (!bin) throw new Error(CHROMIUM_MISSING);
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'dw-chromium-'));
  const png = path.join(profile, 'shot.png');
  try {
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${profile}`,
      `--window-size=${width},${height}`,
      `--screenshot=${png}`,
      `file://${file}`,
    ];
    await new Promise<void>((resolve, reject) => {
      execFile(bin, args, { timeout: 120_000 }, (err, _out, stderr) =>
        err && !existsSync(png) ? reject(new Error(`chromium failed: ${err.message}\n${stderr}`)) : resolve(),
      );
    });
    return decodePng(await fs.readFile(png));
  } finally {
    await fs.rm(profile, { recursive: true, force: true });
  }
}

export interface Pixels {
  width: number;
  height: number;
  /** [r, g, b] at (x, y). */
  at(x: number, y: number): [number, number, number];
}

/** Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes). */
export function decodePng(buf: Buffer): Pixels {
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (at < buf.length) {
    const len = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs');
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0;
      if (!channels) throw new Error(`PNG colour type ${data[9]} not handled`);
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[y * stride + i - channels]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + i]! : 0;
      const c = y > 0 && i >= channels ? out[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c;
      const pred =
        filter === 0
          ? 0
          : filter === 1
            ? a
            : filter === 2
              ? b
              : filter === 3
                ? (a + b) >> 1
                : Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
                  ? a
                  : Math.abs(p - b) <= Math.abs(p - c)
                    ? b
                    : c;
      out[y * stride + i] = (line[i]! + pred) & 0xff;
    }
  }
  return { width, height, at: (x, y) => [out[y * stride + x * channels]!, out[y * stride + x * channels + 1]!, out[y * stride + x * channels + 2]!] };
}

/** `#d62728` → [214, 39, 40]. */
export const rgb = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

/** Pixels within `box` close to `colour` (anti-aliasing blurs edges, so within a tolerance). */
export function countColour(p: Pixels, colour: [number, number, number], box: { x0: number; x1: number; y0: number; y1: number }, tolerance = 24): number {
  let n = 0;
  for (let y = Math.max(0, box.y0); y < Math.min(p.height, box.y1); y++) {
    for (let x = Math.max(0, box.x0); x < Math.min(p.width, box.x1); x++) {
      const [r, g, b] = p.at(x, y);
      if (Math.abs(r - colour[0]) + Math.abs(g - colour[1]) + Math.abs(b - colour[2]) <= tolerance) n++;
    }
  }
  return n;
}
