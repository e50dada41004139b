/**
 * `cookbook-renderer-chatml`: importing this module registers the `chatml` renderer with `@cookbook/renderers`
 * (a documented side effect). `registerChatmlRenderer()` does the same explicitly and is idempotent.
 */
import { isRendererRegistered, registerRenderer } from '@cookbook/renderers';
import { ChatmlRenderer } from './chatml-renderer.js';

/** The name the renderer is registered under. */
export const CHATML_RENDERER_NAME = 'chatml';

/** Register the `chatml` renderer (no-op when it is already registered). */
export function registerChatmlRenderer(): void {
  if (!isRendererRegistered(CHATML_RENDERER_NAME)) {
    registerRenderer(CHATML_RENDERER_NAME, (tokenizer) => new ChatmlRenderer(tokenizer));
  }
}

registerChatmlRenderer();

export { ChatmlRenderer } from './chatml-renderer.js';
