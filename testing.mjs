// `toolhost/testing`: test a plugin through the whole pipeline (testing/index.ts), run from TypeScript through jiti.
import { createJiti } from "jiti";
const jiti = createJiti(import.meta.url, { interopDefault: false });
const api = await jiti.import("./testing/index.ts");
export const { testHost, expectDecision, expectOk, expectNoErrors } = api;
export default api;
