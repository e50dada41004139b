/**
 * JWT mode (server flag `pjwt_auth_enabled`, SDK 0.25.0 `lib/_jwt_auth.py`): the credential is exchanged at
 * `POST /api/v1/auth/token` (`{}` → `{jwt}`) for a short-lived JWT, which then travels in `X-API-Key`. A background
 * timer refreshes it 5 minutes before its `exp`, retrying a failed refresh after 60 s; a request that finds 60 s or
 * less left refreshes on demand first (a stale JWT gets a 401, which is not retried).
 */
import { AuthTokenResponseSchema } from '@cookbook/tinker-wire';
import type { HttpClient } from '../http.js';

const REFRESH_BEFORE_EXPIRY_MS = 300_000;
const REFRESH_ON_DEMAND_MS = 60_000;
const RETRY_DELAY_MS = 60_000;

/** The `exp` claim of a JWT in ms since the epoch, or undefined when it cannot be read. */
export function jwtExpiryMs(jwt: string): number | undefined {
  const payload = jwt.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export class JwtAuth {
  private token = '';
  private refreshing: Promise<string> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly http: HttpClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Fetch the first JWT, install it as the client's credential and start the refresh timer. */
  async init(): Promise<void> {
    const token = await this.fetch();
    this.http.setCredentialProvider(() => this.get());
    this.schedule(token);
  }

  /** The current JWT, refreshed first when 60 s or less remain. */
  async get(): Promise<string> {
    const exp = jwtExpiryMs(this.token);
    if (this.token && exp !== undefined && exp - this.now() > REFRESH_ON_DEMAND_MS) return this.token;
    try {
      return await this.fetch();
    } catch (err) {
      this.http.warn(`cookbook: on-demand JWT refresh failed: ${err instanceof Error ? err.message : String(err)}`);
      return this.token;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private fetch(): Promise<string> {
    this.refreshing ??= (async () => {
      try {
        // The exchange itself sends the raw credential.
        const { data } = await this.http.request({
          method: 'POST',
          path: '/api/v1/auth/token',
          body: {},
          schema: AuthTokenResponseSchema,
          rawCredential: true,
        });
        this.token = data.jwt;
        return data.jwt;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private schedule(token: string): void {
    if (this.stopped) return;
    const exp = jwtExpiryMs(token);
    const delay = exp === undefined ? RETRY_DELAY_MS : Math.max(0, exp - this.now() - REFRESH_BEFORE_EXPIRY_MS);
    this.timer = setTimeout(() => this.refresh(), delay);
    this.timer.unref();
  }

  private refresh(): void {
    if (this.stopped) return;
    this.fetch().then(
      (t) => this.schedule(t),
      () => {
        if (this.stopped) return;
        this.timer = setTimeout(() => this.refresh(), RETRY_DELAY_MS);
        this.timer.unref();
      },
    );
  }
}
