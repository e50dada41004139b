/**
 * The local isolated sandbox (the default backend): every command runs under bubblewrap (`bwrap`) in new user, PID,
 * network, IPC, UTS and cgroup namespaces (`--unshare-all`), with:
 * - no network: the new network namespace has only its own loopback (nothing on the host's 127.0.0.1 is reachable,
 *   and no name resolves);
 * - a file system of only what a program needs: `/usr` (and the `/bin`, `/lib*` links or folders) read-only, a fresh
 *   `/proc` and `/dev`, and two size-bounded tmpfs folders — `/work`, which receives the sandbox's files anew for
 *   every command, and `/tmp`. The user's home, the repository, other sandboxes and the host's `/tmp` are not there;
 * - limits set by `prlimit` inside the namespaces: CPU seconds, address space per process, processes (counted per
 *   sandbox: each command has a user namespace of its own), file size, open files, no core files;
 * - a wall-clock deadline, an output cap and cancellation that SIGKILL bubblewrap's process group; bubblewrap runs
 *   the command as a child of the namespace's PID 1 with `--die-with-parent`, so when it goes every process of the
 *   namespace goes (a background child, a daemonised child, a process that ignores SIGTERM included);
 * - a clean environment (`--clearenv`), a new session (no terminal), no capabilities.
 *
 * Run as root, the user namespace would map to root outside, and Linux does not enforce `RLIMIT_NPROC` for root: so
 * as root bubblewrap itself is started as an unprivileged user (default uid/gid 65534, `nobody`).
 *
 * Where this cannot work (no `bwrap`, no `prlimit`, user namespaces disabled) creating the sandbox throws
 * {@link SandboxUnavailableError} naming the options; it never runs code unconfined.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { checkSandboxPath, FileStore } from './internal/file-store.js';
import { runProcess } from './internal/run-process.js';
import { StoredFilesSandbox } from './internal/stored-files-sandbox.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  failedResult,
  type RunCommandOptions,
  SandboxError,
  type SandboxResult,
  SandboxUnavailableError,
} from './sandbox.js';

/** Resource limits of every command in a local sandbox. */
export interface SandboxLimits {
  /** CPU seconds per process (RLIMIT_CPU); also never more than the command's wall-clock limit. Default 60. */
  cpuSeconds: number;
  /** Address space per process, bytes (RLIMIT_AS). Default 1 GiB. */
  memoryBytes: number;
  /** Processes and threads in the sandbox (RLIMIT_NPROC inside its own user namespace). Default 64. */
  processes: number;
  /** Largest file a process may write, bytes (RLIMIT_FSIZE). Default 16 MiB. */
  fileBytes: number;
  /** Size of the `/work` and of the `/tmp` tmpfs, bytes each. Default 64 MiB. */
  folderBytes: number;
  /** Open files per process (RLIMIT_NOFILE). Default 256. */
  openFiles: number;
}

/** Defaults of {@link SandboxLimits}. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  cpuSeconds: 60,
  memoryBytes: 1024 * 1024 * 1024,
  processes: 64,
  fileBytes: 16 * 1024 * 1024,
  folderBytes: 64 * 1024 * 1024,
  openFiles: 256,
};

/** Options of {@link BubblewrapSandbox}. */
export interface BubblewrapOptions {
  limits?: Partial<SandboxLimits>;
  /** Absolute host paths also mounted read-only at the same place (an interpreter installed outside `/usr`). */
  readOnlyPaths?: readonly string[];
  /** The bubblewrap binary. Default: `bwrap` on PATH. */
  bwrap?: string;
  /** Uid/gid bubblewrap runs as when the caller is root. Default 65534 (`nobody`). */
  unprivilegedId?: number;
}

/** Where the sandbox's folder is inside it. */
export const SANDBOX_WORKDIR = '/work';

const OPTIONS_HELP =
  "Options: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) with util-linux's prlimit; allow unprivileged " +
  'user namespaces (sysctl kernel.unprivileged_userns_clone=1 on Debian, user.max_user_namespaces > 0, and on Ubuntu ' +
  '24.04+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap); or run a SandboxFusion ' +
  'server and choose sandbox_backend=sandbox_fusion (SANDBOX_URL); or, for code you trust only, ' +
  'sandbox_backend=unsafe_local, which runs it unconfined.';

function findOnPath(name: string): string | undefined {
  if (name.includes('/')) return existsSync(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    const p = join(dir, name);
    if (dir !== '' && existsSync(p)) return p;
  }
  return undefined;
}

/** The system folders mounted read-only: `/usr` and, per merged-/usr layout, links or binds of `/bin`, `/lib*`. */
function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else if (st.isDirectory()) args.push('--ro-bind', top, top);
  }
  for (const etc of ['/etc/ld.so.cache', '/etc/alternatives', '/etc/localtime']) {
    if (existsSync(etc)) args.push('--ro-bind', etc, etc);
  }
  return args;
}

/** What a working bubblewrap setup needs, resolved once per configuration. */
interface Setup {
  bwrap: string;
  prlimit: string;
  id: number | undefined;
  mounts: string[];
}

const probed = new Map<string, Setup | SandboxUnavailableError>();

/**
 * Checks (once per configuration) that bubblewrap can build the sandbox here: `bwrap` and `prlimit` exist, and a
 * trial command runs in new namespaces with a process limit. Throws {@link SandboxUnavailableError} naming the
 * options otherwise.
 */
export function probeBubblewrap(options: BubblewrapOptions = {}): Setup {
  const isRoot = process.getuid?.() === 0;
  const id = isRoot ? (options.unprivilegedId ?? 65534) : undefined;
  const key = `${options.bwrap ?? 'bwrap'}|${id ?? ''}|${(options.readOnlyPaths ?? []).join(':')}`;
  const cached = probed.get(key);
  if (cached instanceof SandboxUnavailableError) throw cached;
  if (cached !== undefined) return cached;
  const result = ((): Setup | SandboxUnavailableError => {
    const bwrap = findOnPath(options.bwrap ?? 'bwrap');
    if (bwrap === undefined) {
      return new SandboxUnavailableError(
        `the local sandbox needs bubblewrap ("bwrap"), which is not on PATH. ${OPTIONS_HELP}`,
      );
    }
    const prlimit = ['/usr/bin/prlimit', '/usr/sbin/prlimit'].find((p) => existsSync(p));
    if (prlimit === undefined) {
      return new SandboxUnavailableError(`the local sandbox needs util-linux's prlimit in /usr/bin. ${OPTIONS_HELP}`);
    }
    const mounts = systemMounts();
    for (const p of options.readOnlyPaths ?? []) {
      if (!p.startsWith('/'))
        return new SandboxUnavailableError(`readOnlyPaths entry ${JSON.stringify(p)} must be absolute`);
      if (!existsSync(p)) return new SandboxUnavailableError(`readOnlyPaths entry ${p} does not exist`);
      mounts.push('--ro-bind', p, p);
    }
    const setup: Setup = { bwrap, prlimit, id, mounts };
    const trial = spawnSync(
      bwrap,
      [...bwrapArgs(setup, DEFAULT_SANDBOX_LIMITS, [], '', 5), '/bin/sh', '-c', 'exit 7'],
      {
        env: {},
        // The caller's folder may be closed to the unprivileged id (a checkout under /root): start from /.
        cwd: '/',
        ...(id === undefined ? {} : { uid: id, gid: id }),
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    if (trial.status !== 7) {
      const why = (trial.error?.message ?? trial.stderr ?? '').trim() || `exit status ${trial.status}`;
      return new SandboxUnavailableError(
        `bubblewrap could not create the sandbox on this machine${id === undefined ? '' : ` (running as uid ${id})`}: ${why}. ${OPTIONS_HELP}`,
      );
    }
    return setup;
  })();
  probed.set(key, result);
  if (result instanceof SandboxUnavailableError) throw result;
  return result;
}

/** The bwrap command line up to the program (which follows `--`). */
function bwrapArgs(
  setup: Setup,
  limits: SandboxLimits,
  files: { path: string; executable: boolean }[],
  cwd: string,
  cpuSeconds: number,
): string[] {
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    SANDBOX_WORKDIR,
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'PYTHONIOENCODING',
    'utf-8',
    '--setenv',
    'PYTHONDONTWRITEBYTECODE',
    '1',
    ...setup.mounts,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(limits.folderBytes),
    '--tmpfs',
    '/tmp',
    '--size',
    String(limits.folderBytes),
    '--tmpfs',
    SANDBOX_WORKDIR,
  ];
  const dirs = new Set<string>();
  const addDir = (rel: string) => {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      if (d !== '' && !dirs.has(d)) {
        dirs.add(d);
        args.push('--dir', `${SANDBOX_WORKDIR}/${d}`);
      }
    }
  };
  files.forEach((f, i) => {
    const slash = f.path.lastIndexOf('/');
    if (slash > 0) addDir(f.path.slice(0, slash));
    args.push('--perms', f.executable ? '0755' : '0644', '--file', String(3 + i), `${SANDBOX_WORKDIR}/${f.path}`);
  });
  if (cwd !== '') addDir(cwd);
  args.push('--chdir', cwd === '' ? SANDBOX_WORKDIR : `${SANDBOX_WORKDIR}/${cwd}`);
  args.push(
    '--',
    setup.prlimit,
    `--cpu=${cpuSeconds}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
  );
  return args;
}

let nextId = 0;

/**
 * Whether model-written Python can run in the local sandbox here: bubblewrap works (see {@link probeBubblewrap}) and a
 * `python3` runs. For skipping tests and demos on machines without isolation; never a reason to run code unconfined.
 */
export function isolatedPythonAvailable(options: BubblewrapOptions = {}): boolean {
  try {
    probeBubblewrap(options);
  } catch {
    return false;
  }
  return spawnSync('python3', ['--version']).status === 0;
}

/** A local sandbox isolated with bubblewrap; see the module comment for what it guarantees. */
export class BubblewrapSandbox extends StoredFilesSandbox {
  readonly backend = 'bubblewrap';
  readonly sandboxId: string;
  readonly limits: SandboxLimits;
  private readonly setup: Setup;

  /** Throws {@link SandboxUnavailableError} when this machine cannot isolate (see {@link probeBubblewrap}). */
  constructor(options: BubblewrapOptions = {}) {
    const limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    for (const [k, v] of Object.entries(limits)) {
      if (!Number.isInteger(v) || v <= 0)
        throw new SandboxError(`sandbox limit ${k} must be a positive integer, got ${v}`);
    }
    const setup = probeBubblewrap(options);
    super(new FileStore(limits.folderBytes));
    this.limits = limits;
    this.setup = setup;
    this.sandboxId = `bwrap-${process.pid}-${nextId++}`;
  }

  async runCommand(command: string, options: RunCommandOptions = {}): Promise<SandboxResult> {
    if (this.closed) return failedResult(`sandbox ${this.sandboxId} was cleaned up`);
    let cwd: string;
    try {
      cwd = checkSandboxPath(options.cwd ?? '.', 'cwd');
    } catch (e) {
      return failedResult((e as Error).message);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const cpuSeconds = Math.max(1, Math.min(this.limits.cpuSeconds, Math.ceil(timeoutMs / 1000) + 1));
    const files = this.files.list();
    const signal =
      options.signal === undefined ? this.stop.signal : AbortSignal.any([options.signal, this.stop.signal]);
    const argv = [
      this.setup.bwrap,
      ...bwrapArgs(this.setup, this.limits, files, cwd, cpuSeconds),
      '/bin/sh',
      '-c',
      command,
    ];
    return runProcess(argv, {
      env: {},
      cwd: '/',
      ...(this.setup.id === undefined ? {} : { uid: this.setup.id, gid: this.setup.id }),
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      extraInputs: files.map((f) => f.content),
      timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      signal,
    });
  }

  /** As every backend's, but a cleaned-up sandbox refuses new files. */
  override async writeFile(
    path: string,
    content: string | Uint8Array,
    options: { executable?: boolean } = {},
  ): Promise<SandboxResult> {
    if (this.closed) return failedResult(`sandbox ${this.sandboxId} was cleaned up`);
    return super.writeFile(path, content, options);
  }
}
