export * from './wire.js';
