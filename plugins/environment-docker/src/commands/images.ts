import { type CommandContext, defineCommand, runCommandLine } from '@longhaul/core';
import { Command } from 'commander';
import { type BaseSuite, baseImageRef, buildBaseImage, defaultCacheDir, recipeOf } from '../base-image.js';
import { connectDocker } from '../environment.js';

const description = "Manage the docker environment's images";

/** `longhaul images build|ref`: the base image of the docker environment, made without a registry. */
export const imagesCommand = defineCommand({
  name: 'images',
  description,
  run: (args, context) =>
    runCommandLine(
      new Command('longhaul images').description(description),
      (images) => define(images, context),
      args,
      context,
    ),
});

function define(images: Command, context: CommandContext): void {
  images
    .command('build')
    .description(
      'Build the base image (Debian minbase via debootstrap + python3, pytest, PyYAML, git and the host Node) and import it as longhaul/base:<recipe hash>; needs root, debootstrap and a Debian mirror',
    )
    .option(
      '--suite <release>',
      'Debian release: bookworm (12, Python 3.11) or trixie (13, Python 3.13)',
      'bookworm',
    )
    .option('--mirror <url>', 'Debian mirror debootstrap downloads from', 'http://deb.debian.org/debian')
    .option(
      '--cache-dir <dir>',
      'where downloaded packages and the root filesystem tarball are kept',
      defaultCacheDir(),
    )
    .option('--force', 'rebuild even when the image exists', false)
    .option('--quiet', 'print only the image reference', false)
    .action(
      async (options: {
        suite: string;
        mirror: string;
        cacheDir: string;
        force: boolean;
        quiet: boolean;
      }) => {
        const started = Date.now();
        const docker = await connectDocker();
        const log = options.quiet ? undefined : (line: string) => context.stderr.write(`${line}\n`);
        const image = await buildBaseImage(docker, {
          suite: recipeOf(options.suite as BaseSuite).suite,
          mirror: options.mirror,
          cacheDir: options.cacheDir,
          force: options.force,
          log,
        });
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        if (!options.quiet) {
          context.stderr.write(`${image.built ? `built in ${seconds} s` : 'already present'}: ${image.id}\n`);
        }
        context.stdout.write(`${image.ref}\n`);
      },
    );
  images
    .command('ref')
    .description('Print the reference of the base image this installation uses')
    .option('--suite <release>', 'Debian release: bookworm or trixie', 'bookworm')
    .action((options: { suite: string }) => {
      context.stdout.write(`${baseImageRef(recipeOf(options.suite as BaseSuite))}\n`);
    });
}
