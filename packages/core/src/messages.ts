/**
 * Chat messages as the cookbook passes them around (upstream `renderers/base.py` Message, ToolCall, ToolSpec).
 * They live in core so completers, datasets and environments can share them without depending on renderers.
 */

/** Plain text content. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** Model reasoning ("thinking") content. */
export interface ThinkingPart {
  type: 'thinking';
  thinking: string;
}

/**
 * An image already read and checked (`@cookbook/images`' `loadImage`): its encoded bytes in a format the service takes
 * (PNG or JPEG) and its size in pixels, from which a vision renderer counts its tokens.
 */
export interface LoadedImage {
  kind: 'loaded_image';
  format: 'png' | 'jpeg';
  /** The encoded file bytes. */
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * An image: a file path, an `http(s)`/`file:` URL, a `data:` URI, raw file bytes, or a {@link LoadedImage}. Vision
 * renderers read paths, `data:` URIs and PNG/JPEG bytes themselves; URLs and other formats (WebP, GIF) are loaded
 * first with `@cookbook/images`' `resolveMessageImages`.
 */
export interface ImagePart {
  type: 'image';
  image: string | Uint8Array | LoadedImage;
}

/** One part of a message's content. */
export type ContentPart = TextPart | ThinkingPart | ImagePart;

/** A function call made by the assistant; `arguments` is a JSON string. */
export interface ToolCall {
  type: 'function';
  id?: string;
  function: { name: string; arguments: string };
}

/** A tool call the parser could not understand, kept verbatim. */
export interface UnparsedToolCall {
  raw_text: string;
  error: string;
}

/** A chat message. `role` is free-form: system, user, assistant, tool, or anything a format allows. */
export interface Message {
  role: string;
  content: string | ContentPart[];
  tool_calls?: ToolCall[];
  unparsed_tool_calls?: UnparsedToolCall[];
  /** Only for TrainOnWhat `customized`: whether this message's output is trained. */
  trainable?: boolean;
  tool_call_id?: string;
  name?: string;
}

/** A tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The text of a message's content (thinking parts excluded). */
export function getTextContent(message: Pick<Message, 'content'>): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('');
}
