/**
 * A heuristic prompt-injection detector for content read from files, the web or MCP servers. It
 * only adds an advisory note (the content is never altered or withheld), so it errs towards
 * phrases that almost never appear in ordinary code or prose *addressed to a person*.
 */
export interface InjectionHit {
  label: string;
  line: number;
  match: string;
}

const PATTERNS: Array<[string, RegExp]> = [
  ["\"ignore previous instructions\"", /\b(?:ignore|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|former)\s+(?:instructions|prompts?|messages|directions|rules)/i],
  ["\"disregard your instructions\"", /\bdisregard\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous\s+|prior\s+|above\s+|system\s+)?(?:instructions|prompts?|rules|guidelines)/i],
  ["role reassignment (\"you are now …\")", /\byou\s+are\s+now\s+(?:a|an|the|in|no\s+longer|DAN|my)\b/i],
  ["fake system/role tag", /<\/?(?:system|system-reminder|system_prompt|im_start|im_end|assistant|instructions)\s*>|<\|im_(?:start|end)\|>/i],
  ["\"new instructions:\"", /\b(?:new|updated|real|actual)\s+(?:system\s+)?instructions\s*:/i],
  ["hiding from the user", /\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to)\s+the\s+user\b/i],
  ["tool-call-like JSON", /\{\s*"(?:name|tool|tool_name|recipient_name)"\s*:\s*"[^"]{1,80}"\s*,\s*"(?:input|arguments|parameters|tool_input)"\s*:/],
  ["tool-call-like markup", /<(?:function_calls|invoke\s+name=|tool_use)/i],
];

export function scanInjection(text: string): InjectionHit[] {
  const hits: InjectionHit[] = [];
  for (const [label, re] of PATTERNS) {
    const m = re.exec(text);
    if (m) hits.push({ label, line: text.slice(0, m.index).split("\n").length, match: m[0].slice(0, 80) });
  }
  return hits.sort((a, b) => a.line - b.line);
}
