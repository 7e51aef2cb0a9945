/** Types of cases.mjs (shared with the recorder, which runs as plain Node). */
import type { ConformanceCase } from "./replay.ts";
export const CASES: ConformanceCase[];
