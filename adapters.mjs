// `toolhost/adapters`: a host's tools in Anthropic / OpenAI / MCP shapes (plugins/tool-search/adapters.ts): dist/ when fresh, else through jiti.
import { importEntry } from "./bin/dist.mjs";
import { importTs } from "./bin/jiti-load.mjs";
const api = await importEntry("plugins/tool-search/adapters.ts", () => importTs(import.meta.url, "./plugins/tool-search/adapters.ts", { interopDefault: true }));
export const {
  TOKENIZER, countTokens, anthropicTool, toolTokens, anthropicToolsTokens, deferredAnnouncement, toAnthropicTools, toolReferenceBlocks, toOpenAITools, toMcpTools, poolTokens,
} = api;
export default api;
