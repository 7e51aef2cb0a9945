/**
 * Every ajv compile in toolhost, and ajv itself loaded once, on the first compile (never at import: a run
 * that validates nothing never loads it):
 *  - `validatorFor`: config, manifest and contributed schemas (all errors, no coercion);
 *  - `toolValidator`: tool input schemas, with type coercion, cached across generations by schema text;
 *  - `strictValidator`: the same schema without coercion, for a hook's rewritten input.
 */
import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv";
import { cacheKey, diskCache } from "./disk-cache.ts";
import { stableStringify } from "./json.ts";

type AjvInstance = { compile(schema: object): ValidateFunction };
const instances = new Map<string, AjvInstance>();
const TOOL_OPTIONS = { allErrors: true, strict: false, validateFormats: false };

function ajvWith(options: Record<string, unknown>): AjvInstance {
  const key = JSON.stringify(options);
  let a = instances.get(key);
  if (!a) instances.set(key, (a = new (createRequire(import.meta.url)("ajv") as typeof import("ajv")).Ajv(options)));
  return a;
}

const compiled = new Map<object, ValidateFunction>();
/**
 * A validator for a config, manifest or contributed schema, compiled on its first use — not when it is
 * asked for: a plugin that takes its validator at activation (command-hooks) costs nothing until there is
 * something to validate. `errors` is the last run's.
 */
export function validatorFor(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    let real: ValidateFunction | undefined;
    const lazy = ((data: unknown) => {
      real ??= ajvWith({ allErrors: true, strict: false }).compile(schema);
      const ok = real(data) as boolean;
      lazy.errors = real.errors;
      return ok;
    }) as ValidateFunction;
    compiled.set(schema, (v = lazy));
  }
  return v;
}

/** Validators by schema text, per ajv options; a map that grows past `limit` starts again. */
function cachedCompile(cache: Map<string, ValidateFunction>, options: Record<string, unknown>, limit: number, schema: unknown, key = stableStringify(schema)): ValidateFunction {
  let v = cache.get(key);
  if (!v) {
    v = ajvWith(options).compile(schema as object);
    if (cache.size > limit) cache.clear();
    cache.set(key, v);
  }
  return v;
}

const toolCache = new Map<string, ValidateFunction>();
const strictCache = new Map<string, ValidateFunction>();
let ajvId: string | undefined;
const AJV_ID = () => (ajvId ??= `ajv ${(createRequire(import.meta.url)("ajv/package.json") as { version: string }).version} ${JSON.stringify(TOOL_OPTIONS)}`);
const isTrue = (v: unknown): v is true => v === true;

/**
 * A tool input schema's validator (type coercion on). Schemas an earlier process compiled (lib/disk-cache,
 * keyed by ajv's version and options and the schema text) are compiled on the tool's first call instead of
 * now — compiling is deterministic, so a schema that compiled once compiles again. Any other schema is
 * compiled now, so one that does not compile throws here (and its tool is excluded at build).
 */
export function toolValidator(schema: unknown): () => ValidateFunction {
  const key = stableStringify(schema);
  const hit = toolCache.get(key);
  if (hit) return () => hit;
  const known = diskCache("schemas-compiled", isTrue);
  const id = cacheKey(`${AJV_ID()}\0${key}`);
  const compile = () => cachedCompile(toolCache, { ...TOOL_OPTIONS, coerceTypes: true }, 50_000, schema, key);
  let v: ValidateFunction | undefined;
  if (!known.get(id)) {
    v = compile();
    known.set(id, true);
  }
  return () => (v ??= compile());
}

/** A rewrite's validator: no type coercion (a hook's `{"command": 42}` is refused, not run as "42"). */
export function strictValidator(schema: unknown): ValidateFunction {
  return cachedCompile(strictCache, { ...TOOL_OPTIONS, coerceTypes: false }, 10_000, schema);
}
