import { ConfigError, type YamlFile } from '@longhaul/core';
import type { z } from 'zod';

/** zod's complaints about a parsed file as a ConfigError, each at its line, column and key. */
export function locatedError(yaml: YamlFile, error: z.ZodError): ConfigError {
  return new ConfigError(
    error.issues.flatMap((issue) => {
      const path = issue.path as (string | number)[];
      if (issue.code === 'unrecognized_keys')
        return issue.keys.map((key) => yaml.issue([...path, key], `unknown key '${key}'`));
      return [yaml.issue(path, issue.message.replace(/^Invalid input: /, ''))];
    }),
  );
}
