/**
 * What the service says about the protocol: the `client/config` flags it answers (SDK 0.25.0
 * `types/client_config_response.py`; unset flags keep the SDK defaults), `client/dynamic_config`, and JWT mode
 * (`pjwt_auth_enabled`): `POST /api/v1/auth/token` exchanges the API key for a short-lived HS256 JWT signed with the
 * process's secret, and every later request must carry that JWT in `X-API-Key` (SDK 0.25.0 `lib/_jwt_auth.py`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '@cookbook/core';
import { type ClientConfigResponse, ClientConfigResponseSchema } from '@cookbook/tinker-wire';

/** Protocol options of the service. */
export interface ProtocolOptions {
  /**
   * Flags `client/config` answers (any `ClientConfigResponse` field). Default `{}`: the SDK's defaults, which this
   * service serves (protobuf forward_backward with or without zstd, JSON forms for SDK ≤ 0.24).
   */
  clientFlags?: Partial<ClientConfigResponse>;
  /** Lifetime of a JWT minted by `auth/token` in JWT mode, s. Default 3600. */
  jwtTtlS?: number;
  /** `client/dynamic_config`'s `refresh_interval_sec`. Default 300. */
  dynamicRefreshIntervalS?: number;
}

/** Routes a client calls with its raw API key even in JWT mode (the handshake). */
export const RAW_KEY_ROUTES = new Set(['POST /api/v1/client/config', 'POST /api/v1/auth/token']);

/**
 * Checks `options` and returns the flags to answer; unknown flag names are refused (a typo would do nothing).
 * `sample_partial_results` is on unless the options turn it off: this service keeps a streamed sample's tokens.
 */
export function resolveClientFlags(options: ProtocolOptions = {}): Record<string, unknown> {
  const flags = options.clientFlags ?? {};
  const known = new Set(Object.keys(ClientConfigResponseSchema.shape));
  for (const key of Object.keys(flags)) {
    if (!known.has(key)) {
      throw new ConfigError(`unknown client/config flag "${key}"; known: ${[...known].join(', ')}`, {
        key: 'client_flags',
      });
    }
  }
  const parsed = ClientConfigResponseSchema.safeParse(flags);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`client/config flag ${issue.path.join('.')}: ${issue.message}`, { key: 'client_flags' });
  }
  return { sample_partial_results: true, ...flags };
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** Mints and checks the service's JWTs. */
export class JwtIssuer {
  constructor(
    private readonly secret: Buffer,
    private readonly ttlS: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A JWT valid for the configured lifetime. */
  mint(): string {
    const iat = Math.floor(this.now() / 1000);
    const head = `${b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64(JSON.stringify({ sub: 'local', iat, exp: iat + this.ttlS }))}`;
    return `${head}.${b64(createHmac('sha256', this.secret).update(head).digest())}`;
  }

  /** True for a JWT this process minted that has not expired. */
  verify(token: string): boolean {
    const parts = token.split('.');
    if (parts.length !== 3) return false;
    const want = createHmac('sha256', this.secret).update(`${parts[0]}.${parts[1]}`).digest();
    const got = Buffer.from(parts[2]!, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) return false;
    try {
      const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown };
      return typeof claims.exp === 'number' && claims.exp * 1000 > this.now();
    } catch {
      return false;
    }
  }
}
