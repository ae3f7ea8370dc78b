// The process launcher: a small Node process that starts commands for the runner, so the runner
// (hundreds of megabytes of heap) never forks itself. Forking copies the parent's page tables and
// blocks its event loop; from this process it costs well under a millisecond.
//
// Messages from the runner (over the IPC channel, structured clone):
//   {type: 'spawn', id, file, args, cwd, env, stdin?, maxOutputBytes}
//   {type: 'cut', id}      close the command's output pipes (what it left running holds them)
// Messages to the runner:
//   {type: 'spawned', id, pid}                  the command runs as the leader of group `pid`
//   {type: 'output', id, stream, data}          at most maxOutputBytes + 1 bytes per stream
//   {type: 'exit', id, exitCode, signal, durationMs}   the leader exited; its group was killed
//   {type: 'failed', id, message, code}         the program could not be started (ENOENT, EACCES…)
//   {type: 'closed', id}                        its output pipes are closed: nothing more follows
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Commands whose output is still open, by request id. */
const running = new Map();

function send(message) {
  if (process.connected) process.send(message);
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function start({ id, file, args, cwd, env, stdin, maxOutputBytes }) {
  const started = performance.now();
  let child;
  try {
    child = spawn(file, args, {
      cwd,
      env,
      detached: true,
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    send({ type: 'failed', id, message: error.message, code: error.code });
    send({ type: 'closed', id });
    return;
  }
  const entry = { child, pid: child.pid, exited: false };
  running.set(id, entry);
  child.once('error', (error) => {
    // Emitted when the program could not be started (then nothing else follows but 'close'), or
    // when a signal could not be delivered (the command runs on and exits as usual).
    if (child.pid !== undefined) return;
    // ENOENT also means a missing working directory: say which.
    const where = error.code === 'ENOENT' && !existsSync(cwd) ? ` (no working directory ${cwd})` : '';
    send({ type: 'failed', id, message: `${error.message}${where}`, code: error.code });
  });
  if (child.pid !== undefined) send({ type: 'spawned', id, pid: child.pid });
  for (const stream of ['stdout', 'stderr']) {
    // One byte past the cap tells the runner that output was dropped; the rest is read and dropped.
    let room = maxOutputBytes + 1;
    child[stream].on('data', (chunk) => {
      if (room <= 0) return;
      const data = chunk.length > room ? chunk.subarray(0, room) : chunk;
      room -= data.length;
      send({ type: 'output', id, stream, data });
    });
  }
  if (child.stdin) {
    // A command that does not read its input closes the pipe early: that is not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  }
  child.once('exit', (exitCode, signal) => {
    entry.exited = true;
    // Whatever the leader left running in its group dies with it.
    if (child.pid !== undefined) killGroup(child.pid);
    send({ type: 'exit', id, exitCode, signal, durationMs: performance.now() - started });
  });
  child.once('close', () => {
    running.delete(id);
    send({ type: 'closed', id });
  });
}

function cut(id) {
  const entry = running.get(id);
  if (!entry) return;
  entry.child.stdout.destroy();
  entry.child.stderr.destroy();
}

process.on('message', (message) => {
  if (message.type === 'spawn') start(message);
  else if (message.type === 'cut') cut(message.id);
});

// The runner is gone (it exited, or was killed): nothing it started may outlive it.
process.on('disconnect', () => {
  for (const entry of running.values()) if (!entry.exited && entry.pid !== undefined) killGroup(entry.pid);
  process.exit(0);
});
