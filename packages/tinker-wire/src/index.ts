export * from './contract.js';
export * from './data-types.js';
export * from './losses.js';
export * from './proto.js';
export * from './wire.js';
