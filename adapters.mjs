// `toolhost/adapters`: a host's tools in Anthropic / OpenAI / MCP shapes (plugins/tool-search/adapters.ts), through jiti.
import { createJiti } from "jiti";
const jiti = createJiti(import.meta.url, { interopDefault: true });
const api = await jiti.import("./plugins/tool-search/adapters.ts");
export const {
  TOKENIZER, countTokens, anthropicTool, toolTokens, anthropicToolsTokens, deferredAnnouncement, toAnthropicTools, toolReferenceBlocks, toOpenAITools, toMcpTools, poolTokens,
} = api;
export default api;
