import { ConfigError, type ConfigIssue, readYaml, type YamlFile, zodConfigIssues } from '@longhaul/core';
import type { z } from 'zod';

/** Collects every issue of a load so the author sees all of them at once. */
export class IssueList {
  readonly issues: ConfigIssue[] = [];

  add(issue: ConfigIssue): void {
    this.issues.push(issue);
  }

  /** Runs `load`, keeping the issues of a ConfigError it throws; undefined when it failed. */
  async collect<T>(load: () => Promise<T>): Promise<T | undefined> {
    try {
      return await load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.issues.push(...error.issues);
      return undefined;
    }
  }

  /** Reads a YAML file and validates it against `schema`. */
  async readValidated<S extends z.ZodType>(
    file: string,
    schema: S,
  ): Promise<{ yaml: YamlFile; value: z.output<S> } | undefined> {
    const yaml = await this.collect(() => readYaml(file));
    if (!yaml) return undefined;
    const parsed = schema.safeParse(yaml.value ?? {});
    if (parsed.success) return { yaml, value: parsed.data };
    this.issues.push(...zodConfigIssues(yaml, parsed.error, schema));
    return undefined;
  }

  throwIfAny(): void {
    if (this.issues.length > 0) throw new ConfigError(this.issues);
  }
}
