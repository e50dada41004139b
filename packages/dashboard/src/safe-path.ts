/**
 * Path containment for the dashboard: every file it serves lies inside the runs folder. A request names a run by its
 * path relative to that folder (`sl_basic`, `gem/run-2`); anything absolute, with a `..` or NUL segment, or whose real
 * path (symlinks followed) leaves the folder is refused.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';

/** Why a relative path was refused. */
export type PathRefusal = 'absolute' | 'parent segment' | 'NUL byte' | 'outside the runs folder' | 'not found';

/**
 * The real path of `rel` inside `root` (itself a real path), or the reason it is refused. `rel` is the decoded
 * request value (the URL parser decodes once; an encoded `%2e%2e` arrives here as `..` and is refused). A missing
 * file is `not found`.
 */
export function resolveInside(root: string, rel: string): { path: string } | { refused: PathRefusal } {
  if (rel.includes('\0')) return { refused: 'NUL byte' };
  if (isAbsolute(rel) || /^[a-zA-Z]:/.test(rel) || rel.startsWith('\\')) return { refused: 'absolute' };
  const parts = rel.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return { refused: 'parent segment' };
  let real: string;
  try {
    real = realpathSync(join(root, ...parts));
  } catch {
    return { refused: 'not found' };
  }
  if (!isInside(root, real)) return { refused: 'outside the runs folder' };
  return { path: real };
}

/** Whether real path `path` is `root` or below it. */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Whether `path` exists and its real path (symlinks followed) lies inside `root` (a real path). */
export function realInside(root: string, path: string): boolean {
  try {
    return isInside(root, realpathSync(path));
  } catch {
    return false;
  }
}
