/**
 * Markdown → logical items for the AGENTS.md compiler: a list item or paragraph with its wrapped
 * continuation lines joined (so an exception on the next line stays in the sentence), a heading, or a
 * table row; fenced blocks are kept apart (a `toolhost` fence holds exact rules; any other fence that
 * follows an item is that item's code, e.g. the command under "recompile:"). Every item maps offsets
 * back to source lines, so a rule cites the line its sentence starts on.
 */

export interface Item {
  /** First source line (1-based). */
  line: number;
  /** The text: bullet, quote marker and leading whitespace removed; wrapped lines joined by a space. */
  text: string;
  /** Offsets in `text` where each joined source line starts, and those lines' numbers. */
  offs: number[];
  nums: number[];
  bullet: boolean;
  heading: boolean;
  table: boolean;
  /** A line too long to be an instruction (data, a minified blob). */
  data: boolean;
  /** The text with emphasis removed, computed when first needed. */
  plain?: string;
  /** The lines of a non-toolhost fence right after this item (only blank lines between). */
  code?: string[];
}

export interface Fence {
  tag: string;
  marker: string;
  line: number;
  lines: Array<{ no: number; text: string }>;
  closed: boolean;
}

/** Lines longer than this are data (a table, a minified blob), not instructions. */
export const MAX_LINE = 4000;

export function lineOf(item: Item, at: number): number {
  let k = 0;
  while (k + 1 < item.offs.length && item.offs[k + 1]! <= at) k++;
  return item.nums[k]!;
}

const BULLET = /^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const TABLE = /^\s*\|.*\|\s*$/;
const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/**
 * CommonMark fences: an opening backtick fence's info string holds no backtick (so "``` `${a}` ```" inside a
 * sentence is inline code, not a fence); a closing fence is the same character, at least as long, and
 * nothing after it but spaces ("```bash" inside a fence is content).
 */
function opens(lead: string, marker: string): boolean {
  return marker[0] !== "`" || !lead.slice(marker.length).includes("`");
}
function closes(lead: string, marker: string): boolean {
  const t = lead.trimEnd();
  if (t.length < marker.length) return false;
  for (let i = 0; i < t.length; i++) if (t[i] !== marker[0]) return false;
  return true;
}

/** Whether the first non-space character can start a bullet (-, *, +, a digit). */
function bulletStart(s: string): boolean {
  const c = s.trimStart().charCodeAt(0);
  return c === 45 || c === 42 || c === 43 || (c >= 48 && c <= 57);
}

function newItem(no: number, text: string, kind: Partial<Item> = {}): Item {
  return { line: no, text, offs: [0], nums: [no], bullet: false, heading: false, table: false, data: false, ...kind };
}

const TABLE_VERB = /\b(?:never|don['’]t|do\s+not|not\s+allowed\s+to)\s+(?:\w+\s+)?(?:run|use|call|execute|invoke|edit|modify|touch|change|commit)\b(?=\s+\w)/i;

/** A table row as a sentence: a cell that bans or asks, followed by the code spans of the other cells. */
function tableText(raw: string): string {
  const cells = raw.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  const ban = cells.findIndex((c) => /\b(never|don['’]t|do\s+not|unless|ask|forbidden|not\s+allowed)\b/i.test(c));
  if (ban < 0) return cells.join(" — ");
  const others = cells.filter((_, i) => i !== ban).flatMap((c) => c.match(/`[^`]+`/g) ?? []);
  // "| `just brand` | never run in CI |": the spans go right after the cell's verb, so words after it ("in CI") still narrow them
  const v = others.length ? TABLE_VERB.exec(cells[ban]!) : null;
  if (v) return `${cells[ban]!.slice(0, v.index + v[0].length)} ${others.join(", ")}${cells[ban]!.slice(v.index + v[0].length)}`.trim();
  return `${cells[ban]} ${others.join(", ")}`.trim();
}

export function parseBlocks(text: string): { items: Item[]; fences: Fence[] } {
  const lines = text.split(/\r?\n/);
  const items: Item[] = [];
  const fences: Fence[] = [];
  let fence: Fence | undefined;
  let cur: Item | undefined;
  let lastEnded: Item | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const no = i + 1;
    // each line shape starts with its own character: test the regex only when the first one matches
    const lead = raw.trimStart();
    const c = lead.charCodeAt(0);
    const fm = c === 96 || c === 126 ? /^\s*(```+|~~~+)\s*([\w-]*)/.exec(raw) : null;
    if (fm && (fence ? closes(lead, fence.marker) : opens(lead, fm[1]!))) {
      if (!fence) {
        fence = { tag: fm[2]!.toLowerCase(), marker: fm[1]!, line: no, lines: [], closed: false };
        if (cur || lastEnded) (cur ?? lastEnded)!.code = [];
      } else {
        fence.closed = true;
        fences.push(fence);
        const owner = cur ?? lastEnded;
        if (owner?.code && !owner.code.length) owner.code = fence.lines.map((l) => l.text);
        fence = undefined;
        lastEnded = cur ?? lastEnded;
        cur = undefined;
      }
      continue;
    }
    if (fence) {
      fence.lines.push({ no, text: raw });
      continue;
    }
    if (!lead) {
      if (cur) lastEnded = cur;
      cur = undefined;
      continue;
    }
    lastEnded = undefined;
    if (raw.length > MAX_LINE) {
      items.push((cur = newItem(no, raw.slice(0, 200), { data: true })));
      cur = undefined;
      continue;
    }
    const h = c === 35 ? HEADING.exec(raw) : null;
    if (h) {
      items.push(newItem(no, h[1]!, { heading: true }));
      cur = undefined;
      continue;
    }
    if (c === 124 && TABLE.test(raw)) {
      if (!TABLE_SEP.test(raw)) items.push(newItem(no, tableText(raw), { table: true }));
      cur = undefined;
      continue;
    }
    const body = c === 62 ? raw.replace(/^\s*>\s?/, "") : raw;
    const b = bulletStart(body) ? BULLET.exec(body) : null;
    if (b) {
      items.push((cur = newItem(no, body.slice(b[0].length).trim(), { bullet: true })));
      continue;
    }
    if (cur && !cur.heading && !cur.table && !cur.data) {
      cur.offs.push(cur.text.length + 1);
      cur.nums.push(no);
      cur.text += " " + body.trim();
      continue;
    }
    items.push((cur = newItem(no, body.trim())));
  }
  if (fence) fences.push(fence);
  return { items, fences };
}
