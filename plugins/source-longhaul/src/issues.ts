import { ConfigError, type ConfigIssue, checkYaml, readYaml, type YamlFile } from '@longhaul/core';
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
    const checked = checkYaml(yaml, schema);
    if (checked.data !== undefined) return { yaml, value: checked.data };
    this.issues.push(...checked.issues);
    return undefined;
  }

  throwIfAny(): void {
    if (this.issues.length > 0) throw new ConfigError(this.issues);
  }
}
