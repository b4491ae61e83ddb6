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
    // its task list and incidents read the projection the server keeps
    const tasks = await (await fetch(new URL('/ui/tasks', url))).text();
    const incidents = await (await fetch(new URL('/ui/incidents', url))).text();
    expect(tasks).toContain('0 open tasks match');
    expect(incidents).toContain('No open incident.');

    // and SIGTERM stops it cleanly
    serve.child.kill('SIGTERM');
    const exit = await serve.exit;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('thresher serve: SIGTERM, stopping');
  });

  it('refuses to listen beyond this machine without --auth, saying why', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['serve', '--store', 'memory:', '--host', '0.0.0.0']);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('option --host 0.0.0.0: the API would let that network drive every instance');
    expect(run.stderr).toContain('--auth basic or --auth bearer');
  });

  it('serves beyond this machine with --auth basic, asking every caller for a user of --users', async () => {
    // given a users file made with --hash-password
    workspace = new Workspace();
    const hashed = await workspace.thresher(['serve', '--hash-password'], { stdin: 's3cret\n' });
    expect(hashed.code).toBe(0);
    workspace.write('users.txt', `alice:${hashed.stdout.trim()}\n`);
    let stdout = '';
    const args = ['serve', '--store', 'memory:', '--host', '0.0.0.0', '--port', '0', '--auth', 'basic'];
    const serve = spawnThresher([...args, '--users', 'users.txt'], { cwd: workspace.dir });
    serve.child.stdout?.on('data', (chunk) => (stdout += chunk));
    const url = (await address(() => stdout, serve.exit)).replace('0.0.0.0', '127.0.0.1');

    // then a caller without the password is refused, and alice is served
    expect((await fetch(`${url}/topology`)).status).toBe(401);
    const alice = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    expect((await fetch(`${url}/topology`, { headers: { authorization: alice } })).status).toBe(200);
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
  });

  it('refuses --auth options that do not go together, and a users file it cannot read, by name', async () => {
    workspace = new Workspace();
    const refusals: Array<[string[], string]> = [
      [['--auth', 'basic'], 'option --auth basic needs --users FILE'],
      [['--auth', 'bearer'], 'option --auth bearer needs --issuer URL'],
      [['--auth', 'magic'], 'option --auth magic: not basic, bearer or none'],
      [['--users', 'u.txt'], 'option --users needs --auth basic or --auth bearer'],
      [['--auth', 'basic', '--users', 'u.txt', '--issuer', 'https://x'], 'option --issuer belongs to --auth bearer'],
    ];
    for (const [flags, message] of refusals) {
      const run = await workspace.thresher(['serve', '--store', 'memory:', ...flags]);
      expect(run.code, flags.join(' ')).toBe(2);
      expect(run.stderr).toContain(message);
    }
    workspace.write('plain.txt', 'alice:password\n');
    const plain = await workspace.thresher(['serve', '--store', 'memory:', '--auth', 'basic', '--users', 'plain.txt']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('plain.txt line 1: not "name:scrypt:<salt>:<key>"');
  });

  it('says, serving the view behind --auth bearer, that a browser needs a proxy to add the token', async () => {
    workspace = new Workspace();
    let stdout = '';
    let stderr = '';
    const args = ['serve', '--store', 'memory:', '--port', '0', '--ui', '--auth', 'bearer'];
    const serve = spawnThresher([...args, '--issuer', 'https://issuer.example', '--jwks', 'http://127.0.0.1:9/jwks'], {
      cwd: workspace.dir,
    });
    serve.child.stdout?.on('data', (chunk) => (stdout += chunk));
    serve.child.stderr?.on('data', (chunk) => (stderr += chunk));
    const url = await address(() => stdout, serve.exit);

    expect((await fetch(new URL('/ui/', url))).status).toBe(401);
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
    expect(stderr).toContain('the web view asks for the bearer token the API asks for');
    expect(stderr).toContain('put a proxy that adds it (an OAuth2 proxy, say) in front of /ui');
  });

  it('refuses a bad port by name', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['serve', '--port', 'eighty']);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('option --port: expected a port from 0 to 65535, got "eighty"');
  });
});
