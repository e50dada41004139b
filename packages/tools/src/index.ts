export {
  Bm25Index,
  type Bm25Options,
  bm25Tokenize,
  MAX_SEARCH_K,
  type SearchDocument,
  type SearchHit,
} from './bm25.js';
export {
  defineTool,
  type Tool,
  type ToolDefinition,
  type ToolOutput,
  type ToolRunContext,
  toolSpec,
  toolSpecs,
} from './define-tool.js';
export {
  capOutput,
  DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_SECONDS,
  type ExecuteOptions,
  executeToolCall,
  executeToolCalls,
  type ToolCallResult,
  type ToolErrorKind,
  toolMap,
  unparsedToolCallResult,
} from './execute.js';
export { MAX_PYTHON_TOOL_CODE_CHARS, type PythonToolOptions, pythonTool } from './python-tool.js';
export {
  formatSearchHits,
  loadSearchCollection,
  MAX_COLLECTION_BYTES,
  parseSearchCollection,
  type SearchToolOptions,
  type SearchToolParameters,
  searchTool,
} from './search-tool.js';
