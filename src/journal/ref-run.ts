// One ticket's references to dispatch-log lines as start-up gathers them (journal/ticket-refs.ts,
// journal/redispatch-refs.ts): numbers appended in place, [cover index, byte offset, byte length]
// after each other, made text ("cover,offset,length,…", as the summary keeps them) only when a
// summary is written. A first start over 1,000,000 events appends ~200,000 references; as text each
// was three numbers printed and a string joined onto the ticket's, every one of them surviving
// into V8's old generation: 0.6 s of a 2.2 s first start (docs/performance.md, round ten).
import { refsFromText, type LineRef } from '../contracts/history-summary.js';

export class RefRun {
  private readonly nums: number[] = [];

  /** @param text references a summary kept (checked), before any added here; split only when read. */
  constructor(private text = '') {}

  add(cover: number, offset: number, length: number): void {
    this.nums.push(cover, offset, length);
  }

  /** Append every reference of `other`, after this run's own. */
  addRun(other: RefRun): void {
    // This run's numbers follow its text: another's text joins them as numbers.
    if (other.text !== '') for (const n of other.text.split(',')) this.nums.push(+n);
    for (const n of other.nums) this.nums.push(n);
  }

  /** The references as the summary keeps them. */
  toText(): string {
    if (this.nums.length === 0) return this.text;
    const added = this.nums.join(',');
    return this.text === '' ? added : `${this.text},${added}`;
  }

  /** The references, in the order they were added. */
  toRefs(): LineRef[] {
    const out = refsFromText(this.text);
    for (let i = 0; i + 2 < this.nums.length; i += 3) out.push([this.nums[i]!, this.nums[i + 1]!, this.nums[i + 2]!]);
    return out;
  }
}
