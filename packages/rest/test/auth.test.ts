import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import {
  basicAuthenticator,
  bearerAuthenticator,
  type CamundaRestServer,
  hashPassword,
  readUsers,
  startCamundaRestServer,
} from '@thresher/rest';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const one of open.splice(0).reverse()) await one.close();
});

async function serve(authenticate: Parameters<typeof startCamundaRestServer>[0]['authenticate']) {
  const engine = new Engine({ repository: createMemoryRepository() });
  const served: CamundaRestServer = await startCamundaRestServer({
    engine,
    port: 0,
    ...(authenticate ? { authenticate } : {}),
    mounts: [{ path: '/ui', handler: (_req, res) => res.end('the view') }],
  });
  open.push(engine, served);
  return served;
}

const topology = (url: string, authorization?: string) =>
  fetch(`${url}/topology`, authorization ? { headers: { authorization } } : {});
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('HTTP Basic', () => {
  it('should serve a user with the right password, and refuse anyone else with 401 and a challenge', async () => {
    const users = readUsers(`# operators\nalice:${await hashPassword('s3cret')}\n`);
    const server = await serve(basicAuthenticator(users));

    expect((await topology(server.url, basic('alice', 's3cret'))).status).toBe(200);
    for (const authorization of [undefined, basic('alice', 'wrong'), basic('bob', 's3cret'), 'Bearer x']) {
      const refused = await topology(server.url, authorization);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm="thresher"/);
      expect(await refused.json()).toMatchObject({ title: 'UNAUTHORIZED', status: 401, instance: '/v2/topology' });
    }
    // The mounts are behind the same door.
    expect((await fetch(server.url.replace('/v2', '/ui/'))).status).toBe(401);
    const view = await fetch(server.url.replace('/v2', '/ui/'), {
      headers: { authorization: basic('alice', 's3cret') },
    });
    expect(await view.text()).toBe('the view');
  });

  it('should refuse a users file line that is no hash, naming the line', () => {
    expect(() => readUsers('alice:plain-password', 'users.txt')).toThrow(/users.txt line 1/);
    expect(() => readUsers('# nobody\n')).toThrow(/names no user/);
  });
});

describe('bearer JWTs', () => {
  async function issuer() {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' };
    const keys: Server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }));
      } else res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise((resolve) => keys.close(resolve)) });
    const url = `http://127.0.0.1:${(keys.address() as AddressInfo).port}`;
    const sign = (claims: { iss?: string; aud?: string; exp?: number }) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(claims.iss ?? url)
        .setAudience(claims.aud ?? 'thresher')
        .setIssuedAt()
        .setExpirationTime(claims.exp ?? '5m')
        .sign(privateKey);
    return { url, sign };
  }

  it('should serve a token the issuer signed for the audience, found by OpenID discovery, and refuse others', async () => {
    const { url, sign } = await issuer();
    const server = await serve(await bearerAuthenticator({ issuer: url, audience: 'thresher' }));

    expect((await topology(server.url, `Bearer ${await sign({})}`)).status).toBe(200);
    const refusals = [
      undefined,
      'Bearer not-a-jwt',
      `Bearer ${await sign({ aud: 'another-api' })}`,
      `Bearer ${await sign({ iss: 'https://elsewhere.example' })}`,
      `Bearer ${await sign({ exp: Math.floor(Date.now() / 1000) - 60 })}`,
    ];
    for (const authorization of refusals) {
      const refused = await topology(server.url, authorization);
      expect(refused.status, authorization).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('should refuse to start when the issuer has no OpenID configuration, saying where it looked', async () => {
    await expect(bearerAuthenticator({ issuer: 'http://127.0.0.1:9/none' })).rejects.toThrow(
      /openid-configuration.*could not be read/,
    );
  });
});

describe('the interface listened on', () => {
  it('should refuse another interface than loopback without an authenticator, and take it with one', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    open.push(engine);
    await expect(startCamundaRestServer({ engine, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /without asking who calls/,
    );
    const users = readUsers(`alice:${await hashPassword('pw')}`);
    const served = await startCamundaRestServer({
      engine,
      host: '0.0.0.0',
      port: 0,
      authenticate: basicAuthenticator(users),
    });
    open.push(served);
    expect(served.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/v2$/);
  });
});
