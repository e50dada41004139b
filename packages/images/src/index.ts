export { type LoadImageOptions, loadImage, loadImageSync } from './load.js';
export { encodePng } from './png-encode.js';
export { imageChunk, imagePartWhere, resolveMessageImages } from './resolve.js';
export {
  type ImageTokenRule,
  imageTokenCount,
  KIMI_K25_IMAGE_RULE,
  QWEN3_VL_IMAGE_RULE,
} from './token-count.js';
