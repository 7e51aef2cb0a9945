// `toolhost/adapters`: a host's tools in Anthropic / OpenAI / MCP shapes (plugins/tool-search/adapters.ts), through jiti.
import { importTs } from "./bin/jiti-load.mjs";
const api = await importTs(import.meta.url, "./plugins/tool-search/adapters.ts", { interopDefault: true });
export const {
  TOKENIZER, countTokens, anthropicTool, toolTokens, anthropicToolsTokens, deferredAnnouncement, toAnthropicTools, toolReferenceBlocks, toOpenAITools, toMcpTools, poolTokens,
} = api;
export default api;
