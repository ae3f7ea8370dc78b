import { badInputExitCode } from '@longhaul/core/light';
import { type Command, CommanderError } from 'commander';
import { scaffoldKinds } from '../scaffold/package-name.js';

/** `longhaul new <kind> <name> [dir]`: writes a plugin package that builds and passes its tests. */
export function register(program: Command): void {
  program
    .command('new')
    .description(
      'Write a new plugin package: TypeScript sources, its conformance suite wired into a vitest test, a README and an example experiment',
    )
    .argument('<kind>', `what the plugin is (${scaffoldKinds.join(', ')})`)
    .argument('<name>', 'its npm package name, e.g. my-agent or @me/my-agent (the plugin id drops the scope)')
    .argument('[dir]', 'where to write it, missing or empty (default: ./<name without its scope>)')
    .action(async (kind: string, name: string, dir: string | undefined) => {
      const { NewPluginError, writePlugin } = await import('../scaffold/write-plugin.js');
      try {
        const written = await writePlugin({ kind, name, dir, cwd: process.cwd() });
        const where = written.layout === 'workspace' ? 'a workspace member' : 'a package of its own';
        process.stdout.write(
          [
            `wrote ${kind} '${written.id}' to ${written.dir} (${where}, ${written.files.length} files)`,
            'next:',
            // A member is linked by an install at the workspace's root.
            ...(written.workspaceRoot
              ? [`  cd ${written.workspaceRoot} && npm install`, `  cd ${written.dir}`]
              : [`  cd ${written.dir}`, '  npm install']),
            '  npm run build && npm test',
            '  longhaul run example/experiment.yaml',
            '',
          ].join('\n'),
        );
      } catch (error) {
        if (!(error instanceof NewPluginError)) throw error;
        process.stderr.write(`longhaul new: ${error.message}\n`);
        throw new CommanderError(badInputExitCode, 'longhaul.badInput', error.message);
      }
    });
}
