import type { z } from 'zod';
import type { ConfigIssue } from '../config/config-error.js';
import { schemaIssues } from '../config/schema-issues.js';
import { closest } from '../config/suggest.js';
import type { YamlFile } from '../config/yaml-file.js';

/**
 * Validates a YAML file's value against `schema`: the data when it is valid, otherwise every issue
 * located in the file, an unknown key with the closest accepted key as a suggestion.
 */
export function checkYaml<S extends z.ZodType>(
  file: YamlFile,
  schema: S,
): { data: z.output<S>; issues: [] } | { data?: undefined; issues: ConfigIssue[] } {
  const checked = schemaIssues(schema, file.value ?? {});
  if (checked.issues.length === 0) return { data: checked.data as z.output<S>, issues: [] };
  return {
    issues: checked.issues.map((issue) => {
      const last = issue.path[issue.path.length - 1];
      const suggestion = issue.known && typeof last === 'string' ? closest(last, issue.known) : undefined;
      return file.issue(issue.path, issue.message, suggestion);
    }),
  };
}
