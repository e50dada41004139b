export { ensureEmbeddedService, stopEmbeddedService } from './embedded.js';
export { createHttpServer, DEFAULT_MAX_BODY_BYTES } from './http-server.js';
export { defaultRoot, type LocalTinker, type LocalTinkerOptions, startLocalTinker } from './local-tinker.js';
export { decodeForwardBackwardRequest, encodeResult, ForwardBackwardRequestProto } from './proto.js';
export {
  HttpError,
  LocalTinkerService,
  type ServiceOptions,
  type ServiceReply,
  type ServiceRequest,
} from './service.js';
export { type CheckpointRecord, type RunRecord, Storage } from './storage.js';
export { tarFiles, untar } from './tar.js';
