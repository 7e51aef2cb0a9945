/**
 * The tool-design checklist `toolhost check` scores a plugin's tools against (what makes a tool easy for a
 * model to pick and call right): a description that says what the tool does and when to use it, no sample
 * output in it, a closed input schema, every parameter described, no parameter both required and
 * defaulted, a schema small enough to load eagerly (else a deferral suggestion), and read-only tools that
 * say whether they may run in parallel. Error messages are not scored: they cannot be read without calling.
 */
import type { Tool } from "../../core/index.ts";
import { toolTokens } from "../../lib/tokens.ts";

export interface DesignCheck {
  check: string;
  ok: boolean;
  advice?: string;
}
export interface DesignScore {
  tool: string;
  plugin: string;
  score: string;
  passed: number;
  total: number;
  tokens: number;
  checks: DesignCheck[];
}

/** Above this many schema tokens a tool is a deferral candidate (the seed's decision tree). */
export const DEFER_TOKENS = 800;

type Schema = { properties?: Record<string, { description?: string; default?: unknown }>; required?: string[]; additionalProperties?: unknown };

export function scoreTool(t: Tool, deferred: boolean): DesignScore {
  const d = (t.description ?? "").trim();
  const s = (t.inputSchema ?? {}) as Schema;
  const props = Object.entries(s.properties ?? {});
  const tokens = toolTokens(t);
  const undocumented = props.filter(([, p]) => !p?.description?.trim()).map(([k]) => k);
  const defaulted = (s.required ?? []).filter((k) => s.properties?.[k]?.default !== undefined);
  const checks: DesignCheck[] = [
    check("says what it does", d.length >= 25, `describe what ${t.name} does in a full sentence (now ${d.length} characters)`),
    check("says when to use it", /\b(use (this|it)?\s*(when|to|for|before|after|instead)|when (you|the user)|call (this|it)|for (finding|reading|running|checking))\b/i.test(d), `add when to use ${t.name} (e.g. "Use this when …") so a model can choose it over similar tools`),
    check("no example output in the description", !/(example (output|response|result)|returns?:\s*[{[]|output:\s*\S|```)/i.test(d), "move sample output out of the description: it costs tokens on every request and models copy it"),
    check("closed input schema", s.additionalProperties === false, 'set "additionalProperties": false so a misspelled parameter is refused instead of ignored'),
    check("every parameter described", undocumented.length === 0, `describe ${undocumented.map((k) => `"${k}"`).join(", ")}`),
    check("minimal required", defaulted.length === 0, `${defaulted.map((k) => `"${k}"`).join(", ")} ${defaulted.length > 1 ? "have" : "has"} a default but ${defaulted.length > 1 ? "are" : "is"} required: make ${defaulted.length > 1 ? "them" : "it"} optional`),
    check("small enough to load eagerly", tokens <= DEFER_TOKENS || deferred, `its definition is ${tokens} tokens (> ${DEFER_TOKENS}): set "shouldDefer": true so it loads through ToolSearch when needed`),
    check("parallel safety declared", t.isReadOnly !== true || t.isConcurrencySafe !== undefined, "a read-only tool should say isConcurrencySafe (true lets a batch run it in parallel)"),
  ];
  const passed = checks.filter((c) => c.ok).length;
  return { tool: t.name, plugin: t.plugin ?? "", score: `${passed}/${checks.length}`, passed, total: checks.length, tokens, checks };
}

function check(name: string, ok: boolean, advice: string): DesignCheck {
  return ok ? { check: name, ok } : { check: name, ok, advice };
}
