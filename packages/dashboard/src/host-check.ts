/**
 * DNS-rebinding guard: a page on another site can point its own host name at 127.0.0.1 and then read a loopback
 * server as same-origin. Browsers always send the name they resolved in `Host`, so the dashboard answers only
 * requests whose `Host` is a loopback name with its own port.
 */

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether `host` (the request's Host header) names this server on a loopback address at `port`. */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const h = host.trim().toLowerCase();
  return LOOPBACK_NAMES.some((name) => h === `${name}:${port}`);
}
