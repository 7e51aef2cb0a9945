// `toolhost/testing`: test a plugin through the whole pipeline (testing/index.ts): dist/ when fresh, else the TypeScript through jiti.
import { importEntry } from "./bin/dist.mjs";
import { importTs } from "./bin/jiti-load.mjs";
const api = await importEntry("testing/index.ts", () => importTs(import.meta.url, "./testing/index.ts", { interopDefault: false }));
export const { testHost, expectDecision, expectOk, expectNoErrors } = api;
export default api;
