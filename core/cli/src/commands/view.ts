import { badInputExitCode } from '@longhaul/core/light';
import { type Command, CommanderError } from 'commander';

/** `longhaul view [RUN|runs/]`: the report pages of runs, served on 127.0.0.1 and updated live. */
export function register(program: Command): void {
  program
    .command('view')
    .description(
      "Serve a list of the runs in a folder (status, headline scores, errors) and each run's report on 127.0.0.1, updated live",
    )
    .argument('[dir]', 'a run directory or a folder of runs', 'runs')
    .option('--port <port>', 'the port to listen on (default: a free one)', '0')
    .action(async (dir: string, options: { port: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        process.stderr.write(`--port ${options.port}: not a port number (0 to 65535)\n`);
        throw new CommanderError(badInputExitCode, 'longhaul.badInput', 'bad port');
      }
      const { startViewer } = await import('@longhaul/report');
      let viewer: Awaited<ReturnType<typeof startViewer>>;
      try {
        viewer = await startViewer({ path: dir, port });
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`);
        throw new CommanderError(badInputExitCode, 'longhaul.badInput', (error as Error).message);
      }
      // The handlers are in place before the URL is printed: whoever reads it may signal at once.
      const stopped = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      process.stdout.write(`viewer: ${viewer.url} (read-only; Ctrl-C stops it)\n`);
      const signal = await stopped;
      await viewer.close();
      process.stdout.write(`viewer stopped (${signal})\n`);
    });
}
