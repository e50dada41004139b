/** `@cookbook/dashboard`: a read-only local web app over run folders (this project's and upstream's). */

export type { BenchmarkResult } from './eval-folders.js';
export { type Dashboard, type DashboardOptions, startDashboard } from './server.js';
