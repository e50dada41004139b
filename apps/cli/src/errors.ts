/**
 * How the CLI reports a failure: one `cookbook:` line naming the path, key or value, and an exit code — 2 for usage
 * errors (a bad key, value or config), 1 for runtime failures. Only a bug (an error nobody anticipated) prints a
 * stack trace. The line may quote untrusted text (a dataset line, a server's reply): its control characters are
 * escaped, so it cannot drive the terminal.
 */
import { ConfigError, CookbookError, escapeControlChars } from '@cookbook/core';

/** What went wrong with a file or the network, in words, for the system errors users cause (paths, ports, hosts). */
function systemErrorLine(err: NodeJS.ErrnoException): string | undefined {
  const where = err.path ?? (err as { hostname?: string }).hostname ?? (err as { address?: string }).address;
  const port = (err as { port?: number }).port;
  switch (err.code) {
    case 'EISDIR':
      return where === undefined
        ? `a folder was given where a file is needed (${err.message})`
        : `${where} is a folder, not a file`;
    case 'ENOTDIR':
      return `${where}: a part of this path is a file, not a folder`;
    case 'ENOENT':
      return `${where}: no such file or folder`;
    case 'EACCES':
    case 'EPERM':
      return `${where}: permission denied`;
    case 'EADDRINUSE':
      return `port ${port ?? ''} on ${where ?? 'this host'} is already in use: choose another port= (0 picks a free one)`;
    case 'EADDRNOTAVAIL':
      return `cannot bind ${where ?? 'this address'}: it is not an address of this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host name ${where ?? ''}: check host= (or your network)`;
    default:
      return undefined;
  }
}

/** The line and exit code for `err`, or undefined when it is a bug (the caller rethrows it). */
export function describeFailure(err: unknown): { line: string; exitCode: number } | undefined {
  if (CookbookError.isInstance(err)) {
    const usage = err instanceof ConfigError;
    return { line: `cookbook: ${escapeControlChars(err.message)}`, exitCode: usage ? 2 : 1 };
  }
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string') {
    const line = systemErrorLine(err as NodeJS.ErrnoException);
    if (line !== undefined) return { line: `cookbook: ${escapeControlChars(line)}`, exitCode: 1 };
  }
  return undefined;
}
