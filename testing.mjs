// `toolhost/testing`: test a plugin through the whole pipeline (testing/index.ts), run from TypeScript through jiti.
import { importTs } from "./bin/jiti-load.mjs";
const api = await importTs(import.meta.url, "./testing/index.ts", { interopDefault: false });
export const { testHost, expectDecision, expectOk, expectNoErrors } = api;
export default api;
