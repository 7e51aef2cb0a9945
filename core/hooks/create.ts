/** The hook objects, made from the table: one frozen object per Host, and one per Build. */
import * as tapable from "tapable";
import type { BuildHooks, HostHooks } from "../types.ts";
import { instrument, type ProblemSink } from "./attribute.ts";
import { BUILD_HOOKS, HOST_HOOKS, type HookKind, type HookRow } from "./table.ts";

// tapable is CommonJS: its classes are the namespace itself or its `default`, depending on the loader's interop.
const classes = ((tapable as { default?: unknown }).default ?? tapable) as typeof import("tapable");
export const { SyncHook, SyncBailHook, SyncWaterfallHook, AsyncParallelHook, AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook } = classes;

function createFrom<T>(owner: string, rows: Record<string, HookRow>, sink: ProblemSink): T {
  const out: Record<string, unknown> = {};
  for (const [key, r] of Object.entries(rows)) {
    const Hook = classes[r.kind as HookKind] as unknown as new (args: string[]) => { intercept: Function };
    out[key] = instrument(new Hook([...r.args]), `${owner}.${key}`, r.failure, sink, r.kind.endsWith("WaterfallHook"), r.args.length);
  }
  return Object.freeze(out) as T;
}

export function createHostHooks(sink: ProblemSink): HostHooks {
  return createFrom<HostHooks>("host", HOST_HOOKS, sink);
}

export function createBuildHooks(sink: ProblemSink): BuildHooks {
  return createFrom<BuildHooks>("build", BUILD_HOOKS, sink);
}
