export { ModelResolver } from './models.js';
export { createOpenAIRoutes, type OpenAIRoutesOptions } from './routes.js';
