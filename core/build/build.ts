/**
 * One Build = one pool generation: fresh frozen hooks, the sealed pool, its compiled validators, and the
 * config and mode it was made with, frozen — a call in flight never sees the next generation's.
 */
import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv";
import type { ProblemReport } from "../errors.ts";
import { createBuildHooks } from "../hooks/create.ts";
import { hooksFacade } from "../hooks/facade.ts";
import type { BuildHooks, BuildView, Exclusion, HostConfig, HostView, LoadedPlugin, PoolContext, PoolSnapshot, Tool } from "../types.ts";
import type { CallBuild } from "../call/call.ts";
import { collect, defer, exclude, resolveConflicts, seal, sort, type PhaseState } from "./phases.ts";
import { stableStringify } from "./pool.ts";
import { cacheKey, diskCache } from "../../lib/disk-cache.ts";

type AjvInstance = { compile(schema: object): ValidateFunction };
let ajv: AjvInstance | undefined;
let strictAjv: AjvInstance | undefined;
const strictCache = new Map<string, ValidateFunction>();
// Validators are cached across generations by schema text: unchanged tools never recompile.
const validatorCache = new Map<string, ValidateFunction>();
const OPTIONS = { allErrors: true, strict: false, validateFormats: false };

/** ajv is required on the first compile, not at import or build: a pool whose schemas all compiled before (`toolhost tools`) never loads it. */
function ajvs(): { ajv: AjvInstance; strictAjv: AjvInstance } {
  if (!ajv || !strictAjv) {
    const { Ajv } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
    ajv = new Ajv({ ...OPTIONS, coerceTypes: true });
    strictAjv = new Ajv({ ...OPTIONS, coerceTypes: false });
  }
  return { ajv, strictAjv };
}

/**
 * Input schemas an earlier process compiled (lib/disk-cache, keyed by ajv's version and options and the schema
 * text): they are compiled on the tool's first call instead of at every build — compiling is deterministic, so a
 * schema that compiled once compiles again. Any other schema is compiled at build, so one that does not compile
 * still excludes its tool there.
 */
let ajvId: string | undefined;
const AJV_ID = () => (ajvId ??= `ajv ${(createRequire(import.meta.url)("ajv/package.json") as { version: string }).version} ${JSON.stringify(OPTIONS)}`);
const isTrue = (v: unknown): v is true => v === true;
function checkedValidator(schema: unknown): () => ValidateFunction {
  const key = stableStringify(schema);
  const hit = validatorCache.get(key);
  if (hit) return () => hit;
  const known = diskCache("schemas-compiled", isTrue);
  const id = cacheKey(`${AJV_ID()}\0${key}`);
  let v: ValidateFunction | undefined;
  if (!known.get(id)) {
    v = compileSchema(schema, key);
    known.set(id, true);
  }
  return () => (v ??= compileSchema(schema, key));
}

/** A rewrite's validator: no type coercion (a hook's `{"command": 42}` is refused, not run as "42"). */
function compileStrict(schema: unknown): ValidateFunction {
  const key = stableStringify(schema);
  let v = strictCache.get(key);
  if (!v) {
    v = ajvs().strictAjv.compile(schema as object);
    if (strictCache.size > 10_000) strictCache.clear();
    strictCache.set(key, v);
  }
  return v;
}

function compileSchema(schema: unknown, key = stableStringify(schema)): ValidateFunction {
  let v = validatorCache.get(key);
  if (!v) {
    v = ajvs().ajv.compile(schema as object);
    if (validatorCache.size > 50_000) validatorCache.clear();
    validatorCache.set(key, v);
  }
  return v;
}

export class Build implements CallBuild {
  readonly hooks: BuildHooks;
  readonly problems: ProblemReport[] = [];
  readonly validators = new Map<string, () => ValidateFunction>();
  /** Errors pool hooks reported through `ctx.problem`: this generation must not replace the last good one. */
  readonly blocking = new Set<ProblemReport>();
  readonly config: Readonly<HostConfig>;
  private sealed?: PoolSnapshot;
  private readonly views = new Map<string, BuildView>();

  constructor(
    readonly generation: number,
    readonly mode: string,
    readonly cwd: string,
    config: HostConfig,
    readonly plugins: readonly LoadedPlugin[],
    readonly host: HostView,
    readonly allowAlways: (tool: Tool, input: unknown, sessionId?: string) => void,
  ) {
    this.config = frozenCopy(config);
    this.hooks = createBuildHooks((p) => this.problems.push(p));
  }

  get pool(): PoolSnapshot {
    if (!this.sealed) throw new Error(`generation ${this.generation} is not assembled yet`);
    return this.sealed;
  }

  validator(tool: Tool): ValidateFunction | undefined {
    return this.validators.get(tool.name)?.();
  }

  strictValidator(tool: Tool): ValidateFunction | undefined {
    return this.validators.has(tool.name) ? compileStrict(tool.inputSchema) : undefined;
  }

  /** The view handed to plugin `id`: same hooks, but every tap is recorded under `id`. */
  viewFor(id: string): BuildView {
    let v = this.views.get(id);
    if (!v) {
      v = Object.freeze({ generation: this.generation, hooks: hooksFacade(this.hooks, id), mode: this.mode, cwd: this.cwd, config: this.config, plugins: this.plugins, host: this.host });
      this.views.set(id, v);
    }
    return v;
  }

  async assemble(): Promise<PoolSnapshot> {
    const report = (p: ProblemReport) => void (this.problems.push(p), p.severity === "error" && this.blocking.add(p));
    const ctx: PoolContext = { generation: this.generation, mode: this.mode, cwd: this.cwd, problem: report };
    const s: PhaseState = { hooks: this.hooks, problems: this.problems, ctx, excluded: [] as Exclusion[], plugins: this.plugins, addedBy: new Map(), validators: this.validators, compile: checkedValidator };
    const tools = await collect(s);
    ctx.collectedNames = new Set(tools.map((t) => t?.name));
    const pooled = sort(s, exclude(s, resolveConflicts(s, tools)));
    this.sealed = seal(s, defer(s, pooled));
    return this.sealed;
  }
}

/** A frozen deep copy of plain objects and arrays; other values (functions, class instances) are shared as they are. */
function frozenCopy<T>(v: T): T {
  if (Array.isArray(v)) return Object.freeze(v.map(frozenCopy)) as T;
  if (!v || typeof v !== "object" || (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = frozenCopy(x);
  return Object.freeze(out) as T;
}
