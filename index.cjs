// `require("toolhost")`: toolhost is an ES module package (its entry uses top-level await), so say how to load it
// instead of Node's ERR_REQUIRE_ASYNC_MODULE.
throw new Error('toolhost is ESM-only: use `import { createHost } from "toolhost"` (or, from CommonJS, `const { createHost } = await import("toolhost")`).');
