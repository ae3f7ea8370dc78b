import { type PluginKind, pluginKinds } from '@longhaul/core/light';

/** The kinds `longhaul new` writes: every plugin kind but `executor`, which has no template. */
export const scaffoldKinds = pluginKinds.filter((kind) => kind !== 'executor') as Exclude<
  PluginKind,
  'executor'
>[];
export type ScaffoldKind = (typeof scaffoldKinds)[number];

// npm's rules for a new package name: lowercase, URL-safe, at most 214 characters, optionally scoped.
const npmName = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

/** Why `name` cannot be an npm package name, or undefined when it can. */
export function packageNameProblem(name: string): string | undefined {
  if (name.length > 214) return 'is longer than 214 characters';
  if (!npmName.test(name)) {
    return 'must be lowercase letters, digits and - . _ ~, optionally scoped (@scope/name), not starting with . or _';
  }
  return undefined;
}

/**
 * The plugin id experiments use for the package `name`: its last part without a `longhaul-` or
 * `<kind>-` prefix (`@me/longhaul-harness-foo` → `foo`), so it reads well in a condition key.
 */
export function pluginIdFor(kind: ScaffoldKind, name: string): string {
  let id = name.slice(name.indexOf('/') + 1);
  for (const prefix of ['longhaul-', `${kind}-`]) {
    if (id.startsWith(prefix) && id.length > prefix.length) id = id.slice(prefix.length);
  }
  return id;
}
