export { Bm25Index, type Bm25Options, type SearchDocument } from './bm25.js';
export { defineTool, type Tool, toolSpecs } from './define-tool.js';
export {
  type ExecuteOptions,
  executeToolCall,
  executeToolCalls,
  type ToolCallResult,
  toolMap,
} from './execute.js';
export type { PythonToolOptions } from './python-tool.js';
export {
  formatSearchHits,
  loadSearchCollection,
  type SearchToolOptions,
  searchTool,
} from './search-tool.js';
