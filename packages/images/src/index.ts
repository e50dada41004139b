export {
  checkJpeg,
  checkPng,
  crc32,
  type ImageFormat,
  type ImageSize,
  readImageSize,
  sniffImageFormat,
  type WireImageFormat,
} from './formats.js';
export {
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_MAX_IMAGE_PIXELS,
  isLoadedImage,
  type LoadImageOptions,
  loadImage,
  loadImageSync,
  loadSharp,
} from './load.js';
export { encodePng, MAX_ENCODE_SIDE } from './png-encode.js';
export { imageChunk, imagePartWhere, messagesHaveImages, resolveMessageImages } from './resolve.js';
export {
  type ImageTokenPlan,
  type ImageTokenRule,
  imageTokenCount,
  imageTokenPlan,
  KIMI_K25_IMAGE_RULE,
  type KimiImageRule,
  pythonRound,
  QWEN3_VL_IMAGE_RULE,
  type QwenVLImageRule,
  qwenSmartResize,
} from './token-count.js';
