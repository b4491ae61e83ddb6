import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compatibility, createCamundaRestHandler, PinnableClock } from '@thresher/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';

let api: Api;
beforeAll(async () => {
  api = await serveApi();
});
afterAll(async () => {
  await api.close();
});

describe('problem responses', () => {
  it('should answer a path no operation has with a 404 problem naming the path', async () => {
    const response = await api.call('GET', '/no-such-thing');
    expect(response.status).toBe(404);
    expect(await problemOf(response)).toEqual({
      type: 'about:blank',
      title: 'NOT_FOUND',
      status: 404,
      detail: 'no operation at /v2/no-such-thing',
      instance: '/v2/no-such-thing',
    });
  });

  it('should answer a path outside /v2 with a 404 problem saying where the API is', async () => {
    const response = await fetch(new URL('/v1/topology', api.server.url));
    expect(response.status).toBe(404);
    expect((await problemOf(response)).detail).toMatch(/the API is under \/v2/);
  });

  it('should answer a method an operation path does not take with a 405 naming the ones it takes', async () => {
    const response = await api.call('DELETE', '/topology');
    expect(response.status).toBe(405);
    expect((await problemOf(response)).detail).toBe('DELETE /v2/topology is not an operation; it takes GET');
  });

  it('should answer identity operations with a 501 saying Thresher has no identity yet', async () => {
    const response = await api.call('POST', '/users/search', {});
    expect(response.status).toBe(501);
    expect((await problemOf(response)).detail).toMatch(/searchUsers is not served: Thresher has no identity/);
  });

  it('should refuse a body that is not JSON with a 400, and one of another media type with a 415', async () => {
    const broken = await api.call('PUT', '/clock', '{"timestamp":', { 'content-type': 'application/json' });
    expect(broken.status).toBe(400);
    expect((await problemOf(broken)).detail).toMatch(/the body is not JSON/);

    const text = await api.call('PUT', '/clock', 'timestamp=1', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect((await problemOf(text)).detail).toMatch(/must be application\/json, not "text\/plain"/);
  });

  it("should refuse a change a browser sends from another site's page with a 403, and change nothing", async () => {
    // when pages of another site make a browser pin the clock and deploy a model (a form can send multipart)
    const pinned = await api.call('PUT', '/clock', { timestamp: 1 }, { origin: 'http://evil.example' });
    const fetched = await api.call('PUT', '/clock', { timestamp: 1 }, { 'sec-fetch-site': 'cross-site' });
    const form = new FormData();
    form.append('resources', new Blob(['<definitions/>']), 'evil.bpmn');
    const deployed = await api.call('POST', '/deployments', form, { origin: 'null' });

    // then each is refused, saying why, and nothing changed
    for (const response of [pinned, fetched, deployed]) {
      expect(response.status).toBe(403);
      expect((await problemOf(response)).detail).toMatch(
        /a browser's request from another site's page may not change anything/,
      );
    }
    expect(api.clock.pinned).toBeUndefined();
    expect(await api.engine.deployments()).toEqual([]);

    // while a browser on the API's own origin, and a client that is no browser, are served
    const host = new URL(api.server.url).host;
    expect((await api.call('PUT', '/clock', { timestamp: 1 }, { origin: `http://${host}` })).status).toBe(204);
    expect((await api.call('PUT', '/clock', { timestamp: 2 }, { 'sec-fetch-site': 'same-origin' })).status).toBe(204);
    expect((await api.call('GET', '/topology', undefined, { origin: 'http://evil.example' })).status).toBe(200);
    expect(api.clock.pinned).toBe(2);
    api.clock.reset();
  });

  it('should refuse a body over the limit with a 413 and leave the clock as it was', async () => {
    // when a pin is sent with a body over 4 MiB
    const response = await api.call('PUT', '/clock', { timestamp: 1, pad: 'x'.repeat(4 * 1024 * 1024) });

    // then it is refused as too large, and nothing changed
    expect(response.status).toBe(413);
    expect((await problemOf(response)).title).toBe('PAYLOAD_TOO_LARGE');
    expect(api.clock.pinned).toBeUndefined();
  });

  it('should answer a failure no problem names with a 500 that shows nothing of it, and report it', async () => {
    // given a server whose clock fails in a way nothing classifies
    const reported: unknown[] = [];
    const clock = Object.assign(new PinnableClock(), {
      pin: () => {
        throw new TypeError('boom at clock.ts:3');
      },
    });
    const handler = createCamundaRestHandler(api.engine, { clock, onError: (error) => reported.push(error) });
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      // when the clock is pinned
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/v2/clock`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ timestamp: 1 }),
      });

      // then it is a 500 saying only that it failed, and the failure is reported
      expect(response.status).toBe(500);
      const problem = await problemOf(response);
      expect(problem.title).toBe('INTERNAL_ERROR');
      expect(problem.detail).not.toMatch(/boom|clock\.ts/);
      expect(reported).toEqual([expect.any(TypeError)]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('compatibility', () => {
  it('should list every operation of the spec once, each served or not served with a reason', () => {
    const rows = compatibility();
    expect(rows).toHaveLength(147);
    expect(new Set(rows.map((row) => row.operation.id)).size).toBe(147);
    const reasons = new Map<string, number>();
    for (const row of rows) {
      const reason = row.notServed?.reason ?? 'served';
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    // The 69 identity operations are out of this API's scope for now; every other one is served.
    expect(reasons.get('identity')).toBe(69);
    expect(reasons.get('served')).toBe(78);
  });
});
