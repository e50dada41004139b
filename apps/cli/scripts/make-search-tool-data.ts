/**
 * Writes the search_tool recipe's shipped collection (`data/search-tool/documents.jsonl`) and questions
 * (`data/search-tool/questions.jsonl`) from `generateMultiHopWorld(SEARCH_TOOL_WORLD_SEED)`. A test checks that the
 * shipped files equal the generator's output. Usage (from the repository root):
 *
 *   node --conditions=@cookbook/source --import tsx apps/cli/scripts/make-search-tool-data.ts
 */
import { writeFileAtomicSync } from '@cookbook/logging';
import { searchToolDataFiles, searchToolDataText } from '../src/recipes/search-tool-data.js';

const files = searchToolDataFiles();
const text = searchToolDataText();
writeFileAtomicSync(files.documents, text.documents);
writeFileAtomicSync(files.questions, text.questions);
console.log(`wrote ${files.documents} and ${files.questions}`);
