import { type ConfigIssue, parseYaml } from '@longhaul/core';

export interface TaskDescription {
  /** The task's slug (`Task:` line). */
  task: string;
  /** The description block as written. */
  text: string;
  /** What the block says before `Instructions:` besides `Task:` (which IDE-Bench's parser drops). */
  statement: string;
  instructions: string;
  difficulty: string;
  category: string;
  tags: string[];
  parserName: string;
}

function tagList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string')
    return value
      .replace(/[[\]<>]/g, '')
      .split(/[\s,]+/)
      .filter(Boolean);
  return [];
}

function field(block: string, name: string): string | undefined {
  return new RegExp(`^\\s*${name}:[ \\t]*(.+)$`, 'im').exec(block)?.[1]?.trim();
}

/**
 * Reads a task_description.txt: the YAML form (`task_description: |` block, then difficulty,
 * category, tags, parser_name) or the legacy flat form (`Task:`, `Instructions:`... lines). Unlike
 * IDE-Bench's own parser, the problem statement between `Task:` and `Instructions:` is kept.
 */
export function parseDescription(
  text: string,
  file: string,
): { description?: TaskDescription; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  let block: string;
  let meta: Record<string, unknown> = {};
  if (/^task_description:/m.test(text)) {
    const yaml = parseYaml(text, file);
    const value = (yaml.value ?? {}) as Record<string, unknown>;
    if (typeof value.task_description !== 'string') {
      issues.push(
        yaml.issue(['task_description'], 'task_description must be a text block (task_description: |)'),
      );
      return { issues };
    }
    block = value.task_description;
    meta = value;
  } else {
    block = text.split(/^(?:author_name|author_email|difficulty|category|tags|parser_name):/m)[0] ?? text;
    for (const key of ['difficulty', 'category', 'tags', 'parser_name']) {
      const found = field(text, key);
      if (found !== undefined) meta[key] = found;
    }
  }
  const task = field(block, 'Task');
  const header = /^\s*(?:Instructions|Objective):\s*\n?([\s\S]*)$/im.exec(block);
  const instructions = header?.[1]?.trim();
  const statement = block
    .slice(0, header?.index ?? block.length)
    .split('\n')
    .filter((line) => !/^\s*Task(?: ID)?:/i.test(line))
    .join('\n')
    .trim();
  const parserName = String(meta.parser_name ?? 'jest').replace(/[<>]/g, '');
  if (!task) issues.push({ file, key: 'task_description', message: 'has no "Task: <slug>" line' });
  if (!instructions)
    issues.push({ file, key: 'task_description', message: 'has no "Instructions:" section' });
  if (issues.length > 0) return { issues };
  return {
    description: {
      task: task!,
      text: block.trim(),
      statement,
      instructions: instructions!,
      difficulty: String(meta.difficulty ?? 'medium'),
      category: String(meta.category ?? 'Backend'),
      tags: meta.tags === undefined ? ['mern'] : tagList(meta.tags),
      parserName,
    },
    issues,
  };
}

/**
 * The task as IDE-Bench's harness tells it (agent_utils.py `deploy_agent_in_container`: the
 * "CURRENT TASK" block with the task's slug and its instructions), with the problem statement
 * before the instructions unless `statement` is false (upstream's parser drops it).
 */
export function taskPrompt(description: TaskDescription, statement = true): string {
  return [
    '## CURRENT TASK',
    `**Task**: ${description.task}`,
    ...(statement && description.statement ? [description.statement] : []),
    `**Instructions**:\n${description.instructions}`,
  ].join('\n\n');
}
