// The demo's text fitted to the terminal it runs in: a long line wraps at spaces with a hanging
// indent under its own, and a word longer than the width (a temp path) is broken, never cut, so
// nothing is lost at 70 columns. Pure.
import { wrap } from '../core/timeline-text.js';

/** `text` with every line at most `columns` wide; unchanged when the width is unknown (not a terminal). */
export function fitWidth(text: string, columns: number | undefined): string {
  if (columns === undefined) return text;
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= columns) return [line];
      const lead = /^ */.exec(line)![0];
      const width = Math.max(16, columns - lead.length);
      const room = width - 4;
      const words = line
        .slice(lead.length)
        .split(' ')
        .flatMap((w) => (w.length <= room ? [w] : (w.match(new RegExp(`.{1,${room}}`, 'g')) ?? [w])));
      return wrap(words.join(' '), width, '    ').map((part) => lead + part);
    })
    .join('\n');
}
