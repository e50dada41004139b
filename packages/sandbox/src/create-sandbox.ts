/**
 * Choosing a backend by name (the `sandbox_backend` config key): `bubblewrap` (the default: the local isolated
 * sandbox), `sandbox_fusion` (an HTTP server at `SANDBOX_URL`) or `unsafe_local` (unconfined, trusted code only). The
 * factory checks the backend when it is made, so a machine that cannot isolate is refused before any code runs.
 */
import { type BubblewrapOptions, BubblewrapSandbox, probeBubblewrap } from './bubblewrap.js';
import { SandboxPool } from './pool.js';
import { type Sandbox, SandboxError } from './sandbox.js';
import { SandboxFusionClient, type SandboxFusionClientOptions, SandboxFusionSandbox } from './sandbox-fusion.js';
import { type UnsafeLocalOptions, UnsafeLocalSandbox } from './unsafe-local.js';

/** The backends, by config name. */
export const SANDBOX_BACKENDS = ['bubblewrap', 'sandbox_fusion', 'unsafe_local'] as const;
export type SandboxBackendName = (typeof SANDBOX_BACKENDS)[number];

/** Options of {@link sandboxFactory}. */
export interface SandboxFactoryOptions {
  bubblewrap?: BubblewrapOptions;
  sandboxFusion?: SandboxFusionClientOptions;
  unsafeLocal?: UnsafeLocalOptions;
}

/** A function making sandboxes of `backend`; throws {@link SandboxUnavailableError} now if it cannot work here. */
export function sandboxFactory(backend: string, options: SandboxFactoryOptions = {}): () => Sandbox {
  switch (backend) {
    case 'bubblewrap': {
      probeBubblewrap(options.bubblewrap);
      return () => new BubblewrapSandbox(options.bubblewrap);
    }
    case 'sandbox_fusion': {
      const client = new SandboxFusionClient(options.sandboxFusion);
      return () => new SandboxFusionSandbox(client);
    }
    case 'unsafe_local':
      return () => new UnsafeLocalSandbox(options.unsafeLocal);
    default:
      throw new SandboxError(
        `unknown sandbox backend ${JSON.stringify(backend)}: expected one of ${SANDBOX_BACKENDS.join(', ')}`,
      );
  }
}

/** A pool of `size` sandboxes of `backend` (see {@link sandboxFactory}). */
export function createSandboxPool(backend: string, size: number, options: SandboxFactoryOptions = {}): SandboxPool {
  return new SandboxPool({ create: sandboxFactory(backend, options), size });
}
