/** Per-plugin facades: a plugin only ever taps under its own id, so attribution cannot be faked. */
type Tappable = { tap?: Function; tapAsync?: Function; tapPromise?: Function; isUsed?: Function; name?: string };

function forceName(options: unknown, id: string): Record<string, unknown> {
  if (typeof options === "string" || options == null) return { name: id };
  return { ...(options as Record<string, unknown>), name: id };
}

/** `hook` as plugin `id` sees it; `wrapFn` wraps every tap function (e.g. a liveness guard). */
export function hookFacade<T extends Tappable>(hook: T, id: string, wrapFn?: (fn: Function) => Function): T {
  const f: Record<string, unknown> = { name: hook.name };
  const w = wrapFn ?? ((fn: Function) => fn);
  for (const m of ["tap", "tapAsync", "tapPromise"] as const) {
    const orig = hook[m];
    if (orig) f[m] = (o: unknown, fn: Function) => orig.call(hook, forceName(o, id), w(fn));
  }
  if (hook.isUsed) f.isUsed = () => (hook.isUsed as Function).call(hook);
  return Object.freeze(f) as T;
}

export function hooksFacade<T extends object>(hooks: T, id: string, wrap?: Partial<Record<keyof T, (fn: Function) => Function>>): T {
  const out: Record<string, unknown> = {};
  for (const [k, h] of Object.entries(hooks)) out[k] = hookFacade(h as Tappable, id, wrap?.[k as keyof T]);
  return Object.freeze(out) as T;
}
