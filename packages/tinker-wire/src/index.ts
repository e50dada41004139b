export * from './data-types.js';
export * from './losses.js';
export * from './wire.js';
