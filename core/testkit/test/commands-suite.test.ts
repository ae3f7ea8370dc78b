import { fileURLToPath } from 'node:url';
import { type CommandDefinition, defineCommand } from '@longhaul/core';
import { type CommandsContext, commandChecks, describeCommandsConformance } from '../src/index.js';
import { describeSuiteTeeth } from './support/failures.js';

const packageDir = fileURLToPath(new URL('./fixtures/commands', import.meta.url));

/** A command whose `--help` prints `help` and exits `code`. */
const greet = (description: string, help = 'Usage: longhaul greet [name]\n', code = 0): CommandDefinition =>
  defineCommand({
    name: 'greet',
    description,
    async run(args, context) {
      if (args.includes('--help')) {
        context.stdout.write(help);
        return code;
      }
      context.stdout.write(`hello ${args[0] ?? 'world'}\n`);
      return 0;
    },
  });

const context = (definitions: CommandDefinition[]): CommandsContext => ({ packageDir, definitions });

describeSuiteTeeth('commands', commandChecks, () => context([greet('Say hello')]), [
  [
    'describes itself otherwise than its manifest',
    () => context([greet('Say hi')]),
    'declares in package.json',
  ],
  [
    'exports a command its manifest does not declare',
    () => context([greet('Say hello'), { ...greet('Say bye'), name: 'bye' }]),
    'declares in package.json',
  ],
  ['treats --help as an argument', () => context([greet('Say hello', 'hello --help\n')]), '--help'],
  ['fails on --help', () => context([greet('Say hello', 'Usage: longhaul greet [name]\n', 1)]), '--help'],
]);

describeCommandsConformance(packageDir, greet('Say hello'));
