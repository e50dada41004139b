/** Test fixtures shared with `@cookbook/logging`'s tests (one copy: the run lifecycle's tests moved here from there). */
export * from '../../../logging/src/__fixtures__/test-utils.js';
