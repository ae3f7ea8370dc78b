import type { Task } from '../contracts/task.js';

/** Task ids in a warning: the first few, then how many more. */
function named(ids: readonly string[], shown = 3): string {
  const more = ids.length - shown;
  return `${ids.slice(0, shown).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * What an environment that does not run images (`environment`: its id, as the experiment names
 * it) warns about the tasks that ask for one: their tests were validated with the image's
 * interpreter and packages and will run with the host's instead, silently otherwise. One line per
 * source, image and what the tasks say was validated there (`EnvironmentNeeds.validatedIn`).
 */
export function imageNotRunWarnings(
  environment: string,
  tasks: readonly Pick<Task, 'id' | 'source' | 'environment'>[],
): string[] {
  const groups = new Map<string, { source: string; image: string; validatedIn?: string; ids: string[] }>();
  for (const task of tasks) {
    const { image, validatedIn } = task.environment;
    if (image === undefined) continue;
    const key = JSON.stringify([task.source, image, validatedIn ?? null]);
    const group = groups.get(key) ?? {
      source: task.source,
      image,
      ...(validatedIn === undefined ? {} : { validatedIn }),
      ids: [],
    };
    group.ids.push(task.id);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ source, image, validatedIn, ids }) => {
    const what =
      validatedIn ??
      `task${ids.length === 1 ? '' : 's'} ${named(ids)} ask${ids.length === 1 ? 's' : ''} for image ${image}`;
    return `source ${source}: ${what}; environment ${environment} runs ${validatedIn ? 'its tests' : 'them'} with the host's interpreter and packages instead — use environment: docker for the same interpreter and packages`;
  });
}
