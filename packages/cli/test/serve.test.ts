import { afterEach, describe, expect, it } from 'vitest';
import { spawnThresher, Workspace } from './helpers.js';

let workspace: Workspace | undefined;
afterEach(() => {
  workspace?.remove();
  workspace = undefined;
});

/** Waits for the address `thresher serve` prints. */
async function address(stdout: () => string, exited: Promise<unknown>): Promise<string> {
  for (;;) {
    const printed = /thresher serve: (http:\/\/\S+)/.exec(stdout())?.[1];
    if (printed) return printed;
    const ended = await Promise.race([
      exited.then(() => true),
      new Promise((resolve) => setTimeout(resolve, 20, false)),
    ]);
    if (ended) throw new Error(`thresher serve ended before printing its address:\n${stdout()}`);
  }
}

describe('thresher serve', () => {
  it('serves the API and the web view on one port, and stops on SIGTERM', async () => {
    // given a server on a SQLite store, with the web view
    workspace = new Workspace();
    let stdout = '';
    const serve = spawnThresher(['serve', '--store', workspace.path('serve.db'), '--port', '0', '--ui'], {
      cwd: workspace.dir,
    });
    serve.child.stdout?.on('data', (chunk) => (stdout += chunk));
    const url = await address(() => stdout, serve.exit);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);

    // when a Camunda client asks for the topology, and a person opens the view
    const topology = await fetch(`${url}/topology`);
    const view = await fetch(new URL('/ui/', url));

    // then both answer
    expect(topology.status).toBe(200);
    expect(((await topology.json()) as { gatewayVersion: string }).gatewayVersion).toBe('8.8.0');
    expect(view.status).toBe(200);
    expect(await view.text()).toContain('<html');

    // and SIGTERM stops it cleanly
    serve.child.kill('SIGTERM');
    const exit = await serve.exit;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('thresher serve: SIGTERM, stopping');
  });

  it('refuses to listen beyond this machine while it authenticates no caller, saying why', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['serve', '--store', 'memory:', '--host', '0.0.0.0']);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('option --host 0.0.0.0: the API would let that network drive every instance');
  });

  it('refuses a bad port by name', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['serve', '--port', 'eighty']);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('option --port: expected a port from 0 to 65535, got "eighty"');
  });
});
