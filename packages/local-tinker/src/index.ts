export { ForwardBackwardRequestProto } from '@cookbook/tinker-wire';
export { BodyDecoderPool } from './body-decoder-pool.js';
export { isBuiltinModel, writeBuiltinModelFolder } from './builtin-folder.js';
export { type CacheUsage, cacheUsage, formatBytes, type PruneOptions, pruneCache, type RunUsage } from './cache.js';
export {
  ClockCycle,
  type ClockCycleOptions,
  type ClockTimers,
  type CycleRecord,
  REAL_TIMERS,
} from './clock-cycle.js';
export {
  acquireEmbeddedService,
  clockOptionsFromEnv,
  DEFAULT_CACHE_MAX_GB,
  ensureEmbeddedService,
  stopEmbeddedService,
} from './embedded.js';
export { HttpError, type ServiceReply, type ServiceRequest } from './http-errors.js';
export { createHttpServer, DEFAULT_MAX_BODY_BYTES, type HttpServerOptions, type MountedRoutes } from './http-server.js';
export { DEFAULT_LIMITS, LIMIT_KEYS, MAX_TTL_SECONDS, type ServiceLimits } from './limits.js';
export {
  defaultModelRoots,
  defaultRoot,
  isLoopback,
  type LocalTinker,
  type LocalTinkerOptions,
  startLocalTinker,
} from './local-tinker.js';
export { decodeForwardBackwardRequest, encodeResult } from './proto.js';
export { LocalTinkerService } from './service.js';
export type { ServiceOptions } from './service-state.js';
export { type CheckpointRecord, ROOT_LOCK_FILE, type RunRecord, Storage } from './storage.js';
export { tarFiles, untar } from './tar.js';
