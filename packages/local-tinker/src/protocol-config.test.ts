import { describe, expect, it } from 'vitest';
import { directService, json, request } from './__tests__/direct.js';
import { JwtIssuer, resolveClientFlags } from './protocol-config.js';

describe('client/config flags and JWT mode', () => {
  it('answers the configured flags; refuses an unknown or mistyped flag by name', async () => {
    expect(resolveClientFlags({ clientFlags: { proto_compress_fwdbwd: true } })).toEqual({
      sample_partial_results: true,
      proto_compress_fwdbwd: true,
    });
    // A service that should not stream (a proxy in front of another) can say so.
    expect(resolveClientFlags({ clientFlags: { sample_partial_results: false } })).toEqual({
      sample_partial_results: false,
    });
    expect(() => resolveClientFlags({ clientFlags: { proto_compres_fwdbwd: true } as never })).toThrow(
      /unknown client\/config flag "proto_compres_fwdbwd"/,
    );
    expect(() => resolveClientFlags({ clientFlags: { fwdbwd_max_chunk_len: -1 } })).toThrow(/fwdbwd_max_chunk_len/);
    const s = await directService({ protocol: { clientFlags: { parallel_fwdbwd_chunks: false } } });
    try {
      expect(json(await s.handle(request('POST', 'client/config', { sdk_version: '0.25.0' })))).toEqual({
        sample_partial_results: true,
        parallel_fwdbwd_chunks: false,
      });
      expect((await s.handle(request('POST', 'auth/token', {}))).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it('JWT mode: auth/token takes the API key, every other route only a JWT it minted and that has not expired', async () => {
    const key = { 'x-api-key': 'tml-k' };
    const s = await directService({ apiKey: 'tml-k', protocol: { clientFlags: { pjwt_auth_enabled: true } } });
    try {
      expect((await s.handle(request('POST', 'auth/token', {}, { 'x-api-key': 'wrong' }))).status).toBe(401);
      const { jwt } = json(await s.handle(request('POST', 'auth/token', {}, key))) as { jwt: string };
      const body = { tags: [], user_metadata: {}, sdk_version: '0.25.0' };
      const raw = await s.handle(request('POST', 'create_session', body, key));
      expect(raw.status).toBe(401);
      expect(json(raw).detail).toMatch(/Invalid JWT/);
      expect((await s.handle(request('POST', 'create_session', body, { 'x-api-key': jwt }))).status).toBe(200);
      const forged = `${jwt.slice(0, jwt.lastIndexOf('.'))}.AAAA`;
      expect((await s.handle(request('POST', 'create_session', body, { 'x-api-key': forged }))).status).toBe(401);
    } finally {
      await s.close();
    }
    const now = Date.now();
    const issuer = new JwtIssuer(Buffer.alloc(32, 1), 60, () => now);
    const token = issuer.mint();
    expect(issuer.verify(token)).toBe(true);
    expect(new JwtIssuer(Buffer.alloc(32, 1), 60, () => now + 61_000).verify(token)).toBe(false);
    expect(new JwtIssuer(Buffer.alloc(32, 2), 60, () => now).verify(token)).toBe(false);
  });
});
