import { join } from 'node:path';
import { type CommandContext, defineCommand, runCommandLine } from '@longhaul/core';
import { Command, InvalidArgumentError } from 'commander';
import { type BaseSuite, baseImageRef, buildBaseImage, defaultCacheDir, recipeOf } from '../base-image.js';
import { endpointOption } from '../endpoint.js';
import { connectDocker } from '../environment.js';
import { buildProfileImage } from '../profile-image.js';
import { type ProfileName, pipLayerRef, profileOf } from '../profiles.js';

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
    .option(
      '--profile <name>',
      "an image for one benchmark instead: scbench (Debian 13 with SlopCodeBench's Python packages, Go and Rust), as longhaul/scbench:<recipe hash>",
      parseProfile,
    )
    .option(
      '--build-network',
      'with --profile: consent to network during the build, to add with pip what Debian does not package (scbench: uv, pyarrow, duckdb, tree-sitter), as longhaul/<profile>-pip:<hash>',
      false,
    )
    .option('--mirror <url>', 'Debian mirror debootstrap downloads from', 'http://deb.debian.org/debian')
    .option(
      '--cache-dir <dir>',
      'where downloaded packages and the root filesystem tarball are kept',
      defaultCacheDir(),
    )
    .option(
      '--host <endpoint>',
      'Docker daemon to import the image into (unix:///path.sock, tcp://host:port, ssh://user@host); the root filesystem is built here and streamed there',
      parseHost,
    )
    .option('--tls-dir <dir>', 'directory with ca.pem, cert.pem and key.pem for a tcp:// --host')
    .option('--force', 'rebuild even when the image exists', false)
    .option('--quiet', 'print only the image reference', false)
    .action(async (options: BuildFlags) => {
      const started = Date.now();
      const docker = await connectDocker(undefined, options.host, tlsFiles(options.tlsDir));
      const log = options.quiet ? undefined : (line: string) => context.stderr.write(`${line}\n`);
      if (options.profile !== undefined) {
        const built = await buildProfileImage(docker, {
          profile: options.profile,
          buildNetwork: options.buildNetwork,
          mirror: options.mirror,
          cacheDir: options.cacheDir,
          force: options.force,
          log,
        });
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        const image = built.pip ?? built.debian;
        if (!options.quiet) {
          context.stderr.write(`${image.built ? `built in ${seconds} s` : 'already present'}: ${image.id}\n`);
          if (built.withoutNetwork.length > 0)
            context.stderr.write(
              `without --build-network it lacks what Debian does not package (${built.withoutNetwork.join(', ')}): tasks that need them are refused, naming them\n`,
            );
        }
        context.stdout.write(`${image.ref}\n`);
        return;
      }
      if (options.buildNetwork)
        throw new InvalidArgumentError(
          '--build-network adds a pip layer to a --profile image; give --profile',
        );
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
    });
  images
    .command('ref')
    .description('Print the reference of the base image this installation uses')
    .option('--suite <release>', 'Debian release: bookworm or trixie', 'bookworm')
    .option('--profile <name>', "a profile's image instead (scbench)", parseProfile)
    .option('--build-network', "with --profile: its pip layer's image", false)
    .action((options: { suite: string; profile?: ProfileName; buildNetwork: boolean }) => {
      if (options.profile === undefined)
        context.stdout.write(`${baseImageRef(recipeOf(options.suite as BaseSuite))}\n`);
      else {
        const name = options.profile;
        context.stdout.write(
          `${options.buildNetwork ? pipLayerRef(name) : baseImageRef(profileOf(name).recipe)}\n`,
        );
      }
    });
}

interface BuildFlags {
  suite: string;
  profile?: ProfileName;
  buildNetwork: boolean;
  mirror: string;
  cacheDir: string;
  host?: string;
  tlsDir?: string;
  force: boolean;
  quiet: boolean;
}

function parseHost(host: string): string {
  if (!endpointOption.safeParse(host).success)
    throw new InvalidArgumentError(
      'not a Docker endpoint (unix:///path.sock, tcp://host:port or ssh://user@host)',
    );
  return host;
}

function tlsFiles(dir: string | undefined) {
  return dir === undefined
    ? undefined
    : { ca: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

function parseProfile(name: string): ProfileName {
  try {
    profileOf(name);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return name as ProfileName;
}
