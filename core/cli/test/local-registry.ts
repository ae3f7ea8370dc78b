import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export interface LocalRegistry {
  /** With a trailing slash, as npm writes registry URLs. */
  url: string;
  /** An npmrc holding the token of a user who may publish. */
  userconfig: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Starts Verdaccio on a loopback port with its storage in `dir`: no uplinks (it serves only what
 * is published to it) and sha1 passwords (bcrypt's cost makes each publish's login several times
 * slower). Creates a user and writes its token to an npmrc for `npm publish --userconfig`.
 */
export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  const config = join(dir, 'config.yaml');
  await writeFile(
    config,
    [
      'storage: ./storage',
      'auth:',
      '  htpasswd: { file: ./htpasswd, algorithm: sha1 }',
      'uplinks: {}',
      "packages: { '**': { access: $all, publish: $authenticated } }",
      'log: { type: stdout, format: pretty, level: error }',
      '',
    ].join('\n'),
  );
  const bin = join(
    dirname(createRequire(import.meta.url).resolve('verdaccio/package.json')),
    'bin',
    'verdaccio',
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, '--config', config, '--listen', `127.0.0.1:${port}`],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  try {
    const token = await createUser(
      url,
      () => child.exitCode,
      () => output,
    );
    const userconfig = join(dir, 'npmrc');
    await writeFile(userconfig, `//127.0.0.1:${port}/:_authToken=${token}\n`);
    return { url, userconfig, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Creates the publishing user once the server answers (it takes a few seconds to start). */
async function createUser(url: string, exitCode: () => number | null, output: () => string): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exitCode() !== null) throw new Error(`verdaccio exited with code ${exitCode()}:\n${output()}`);
    try {
      const response = await fetch(`${url}-/user/org.couchdb.user:publisher`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'publisher', password: 'publisher-password' }),
      });
      const body = (await response.json()) as { token?: string };
      if (!response.ok || body.token === undefined)
        throw new Error(`verdaccio refused the user: ${response.status} ${JSON.stringify(body)}`);
      return body.token;
    } catch (error) {
      const refused = (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      if (!refused || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
