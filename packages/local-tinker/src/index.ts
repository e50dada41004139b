export { BodyDecoderPool } from './body-decoder-pool.js';
export { isBuiltinModel, writeBuiltinModelFolder } from './builtin-folder.js';
export {
  cacheUsage,
  formatBytes,
  type PruneOptions,
  pruneCache,
} from './cache.js';
export { type ClockCycleOptions, type ClockTimers, REAL_TIMERS } from './clock-cycle.js';
export { acquireEmbeddedService, DEFAULT_CACHE_MAX_GB, stopEmbeddedService } from './embedded.js';
export { HttpError } from './http-errors.js';
export type { HttpServerOptions, MountedRoutes } from './http-server.js';
export { DEFAULT_LIMITS, type ServiceLimits } from './limits.js';
export {
  defaultRoot,
  type LocalTinker,
  type LocalTinkerOptions,
  startLocalTinker,
} from './local-tinker.js';
export { decodeForwardBackwardRequest, encodeResult } from './proto.js';
export type { ServiceOptions } from './service-state.js';
export { ROOT_LOCK_FILE } from './storage.js';
