/** The contract every part of toolhost speaks, in types (and the TRACE symbol). Imports only the leaf type files. */
export type * from "./types/tool.ts";
export type * from "./types/pool.ts";
export type * from "./types/records.ts";
export type * from "./types/contract.ts";
export type * from "./types/outcome.ts";
export { TRACE } from "./types/outcome.ts";
export type * from "./types/schema-input.ts";
export type * from "./types/events.ts";
