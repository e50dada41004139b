/**
 * Pieces shared by every training recipe, supervised and RL: the renderer field recipes add to their library schema
 * and the service connection (hosted, configured, or the embedded fallback).
 */
import type { ServiceClient } from '@cookbook/tinker-client';
import { serviceClientFor } from '@cookbook/training';
import { z } from 'zod';

/** The chat-format field every training recipe adds to its library schema. */
export const rendererNameField = z
  .string()
  .nullable()
  .default(null)
  .describe("Chat format; null = the model's recommended renderer");

/**
 * A ServiceClient for `base_url` or the environment. Without a configured server the client starts the embedded
 * local service (the CLI depends on `@cookbook/local-tinker`), so the recipes run offline.
 */
export function connectService(baseUrl: string | null): ServiceClient {
  return serviceClientFor({ baseUrl });
}
