/** A line of a Dockerfile that says something `check` reports, with its 1-based number. */
export interface DockerfileLine {
  line: number;
  text: string;
}

export interface DockerfileNeeds {
  /** Images its stages start FROM (not earlier stages, not scratch), ARG defaults substituted. */
  bases: (DockerfileLine & { image: string })[];
  /** RUN instructions that download (package managers, curl, git clone): the build needs network. */
  downloads: DockerfileLine[];
}

/** Commands of a RUN instruction that fetch from the network. */
const fetching =
  /\b(apt-get|apt|aptitude)\s+(-\S+\s+)*(update|install|upgrade)\b|\b(apk\s+add|yum\s+install|dnf\s+install|microdnf\s+install|zypper\s+in)\b|\bpip3?\s+install\b|\bpython3?\s+-m\s+pip\s+install\b|\buv\s+(pip\s+install|sync|add)\b|\b(npm|pnpm)\s+(install|ci|i)\b|\byarn(\s+install)?\s*($|&&|;)|\b(curl|wget)\s|\bgit\s+clone\b|\bgo\s+(get|mod\s+download)\b|\bcargo\s+(fetch|install)\b|\bgem\s+install\b|\bmvn\s|\bgradle\s/;

/**
 * Reads what building a Dockerfile needs from the host: the images it starts from and whether it
 * downloads. Continuation lines are joined; `ARG NAME=default` before a FROM fills `$NAME` in it
 * (`values` gives the build arguments longhaul passes, such as LONGHAUL_BASE).
 */
export function dockerfileNeeds(text: string, values: Record<string, string> = {}): DockerfileNeeds {
  const args: Record<string, string> = { ...values };
  const stages = new Set<string>();
  const needs: DockerfileNeeds = { bases: [], downloads: [] };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let instruction = lines[i]!;
    while (/\\\s*$/.test(instruction) && i + 1 < lines.length)
      instruction = `${instruction.replace(/\\\s*$/, ' ')}${lines[++i]}`;
    const [keyword = '', ...rest] = instruction.trim().split(/\s+/);
    const word = keyword.toUpperCase();
    const body = rest.join(' ');
    if (word === 'ARG') {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:=("?)(.*)\2)?$/.exec(body);
      if (match && !(match[1]! in values)) args[match[1]!] = match[3] ?? args[match[1]!] ?? '';
    } else if (word === 'FROM') {
      const parts = rest.filter((part) => !part.startsWith('--'));
      const image = (parts[0] ?? '').replace(
        /\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g,
        (_, name: string) => args[name] ?? '',
      );
      if (image && image !== 'scratch' && !stages.has(image.toLowerCase()))
        needs.bases.push({ line: start + 1, text: instruction.trim(), image });
      if (parts[1]?.toLowerCase() === 'as' && parts[2]) stages.add(parts[2].toLowerCase());
    } else if (word === 'RUN' && fetching.test(body)) {
      needs.downloads.push({ line: start + 1, text: instruction.trim().slice(0, 120) });
    }
  }
  return needs;
}
