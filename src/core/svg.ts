// Small helpers for the self-contained SVG files we write (timeline, replay histogram): escaping,
// the document wrapper, and a colour per kind. Pure.
import { toXml } from '../present/sinks.js';

/** Text or an attribute value made safe for XML (present/sinks.ts: controls escaped, non-characters replaced, specials as entities). */
export const esc = toXml;

/** A number with at most one decimal, for coordinates. */
export const px = (n: number) => String(Math.round(n * 10) / 10);

/** A whole SVG document: white background, one font, no external references. */
export function svgDocument(width: number, height: number, title: string, body: readonly string[]): string {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px(width)}" height="${px(height)}" viewBox="0 0 ${px(width)} ${px(height)}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>${esc(title)}</title>`,
    `<rect class="background" x="0" y="0" width="${px(width)}" height="${px(height)}" fill="#ffffff"/>`,
    ...body,
    `</svg>`,
    '',
  ].join('\n');
}
