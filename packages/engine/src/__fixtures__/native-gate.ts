// Gate for the tests that need the native addon. Locally, without the addon, they skip, and their names say what
// they need ("[native addon]"). Under CI=true (.ci/run sets it) they always run, and fail naming why the addon did
// not load: CI builds it at `pnpm install`, so a broken native build must fail the suite, not shrink it.
import { expect } from 'vitest';
import { loadNativeAddon, type NativeAddon } from '../kernels/native-addon.js';

/** True under CI (`CI=true`). */
export const IN_CI = process.env.CI === 'true';

/** A test gate for one build of the addon: `it.runIf(gate.run)`, then `gate.addon()` inside the test. */
export interface NativeGate {
  /** Run the test: the addon loaded, or we are in CI (where a missing addon fails the test). */
  readonly run: boolean;
  /** The addon; fails the test with the load error when it did not load. */
  addon(): NativeAddon;
}

export function nativeGate(variant: 'default' | 'own' = 'default'): NativeGate {
  const loaded = loadNativeAddon(variant);
  return {
    run: 'addon' in loaded || IN_CI,
    addon() {
      if ('error' in loaded) {
        expect.unreachable(
          `the native addon (${variant} build) did not load: ${loaded.error}. It is built by \`pnpm install\` ` +
            '(node-gyp needs python3, make and a C++ compiler); `pnpm --filter @cookbook/engine build:native` shows why.',
        );
      }
      return loaded.addon;
    },
  };
}
