import { normalizePath } from './categories.js';
import type { ParsedTrajectory } from './trajectory.js';

/** Words that make a sentence a claim of change rather than of reading. */
const changeVerbs =
  /\b(updat|modif|chang|add|fix|creat|implement|wr[io]t|edit|remov|delet|refactor|replac|renam|rewr|insert|introduc|patch)\w*/i;
const testClaim = /\b(all|the)\s+tests?\s+(now\s+)?pass|\btests?\s+(are\s+)?(now\s+)?passing\b/i;
const fileToken =
  /(?:^|[\s`'"([])((?:[\w.-]+\/)*[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|cjs|json|ya?ml|md|txt|toml|cfg|ini|sh|go|rs|java|c|h|cc|cpp|hpp|rb|php|ipynb|html|css|sql))\b/g;

export function mentionedFiles(text: string): string[] {
  return [...text.matchAll(fileToken)].map((match) => normalizePath(match[1]!));
}

/** Files a text claims to have changed: file names in sentences that speak of a change. */
export function claimedFiles(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n/)
    .filter((sentence) => changeVerbs.test(sentence))
    .flatMap(mentionedFiles);
}

export interface TurnIntent {
  turn: number;
  claimed: string[];
  changed: string[];
  /** Claimed files with no matching change. */
  unmatched: string[];
  /** Jaccard of claimed and changed files; null when the turn neither claimed nor changed a file. */
  alignment: number | null;
  claimsTestsPass: boolean;
}

/** Whether a claimed name refers to a changed path (claims often give a bare file name). */
function sameFile(claim: string, path: string): boolean {
  return claim === path || path.endsWith(`/${claim}`) || claim.endsWith(`/${path}`);
}

/**
 * What each turn said it did against what changed: claims come from the explanations and
 * instructions of edit calls and from the agent's messages (file names in sentences with a change
 * verb); changes are the files the diff shows for the turn (`changedByTurn`), else the files its
 * successful edit calls touched.
 */
export function intentByTurn(
  trajectory: ParsedTrajectory,
  changedByTurn?: Map<number, string[]>,
): TurnIntent[] {
  return trajectory.turns.map((turn) => {
    const calls = trajectory.calls.filter((call) => call.turn === turn.index);
    const editCalls = calls.filter((call) => call.category === 'edit');
    const texts = [
      ...editCalls.flatMap((call) => [
        call.explanation ?? '',
        typeof (call.input as { instructions?: unknown })?.instructions === 'string'
          ? ((call.input as { instructions: string }).instructions ?? '')
          : '',
      ]),
      ...turn.assistantTexts,
    ];
    const claimed = [...new Set(texts.flatMap(claimedFiles))];
    const changed = [
      ...new Set(
        changedByTurn?.get(turn.index) ??
          editCalls.filter((call) => call.ok && call.file).map((call) => call.file!),
      ),
    ];
    const matchedClaims = claimed.filter((claim) => changed.some((path) => sameFile(claim, path)));
    const matchedChanges = changed.filter((path) => claimed.some((claim) => sameFile(claim, path)));
    const union = claimed.length + changed.length - matchedClaims.length;
    return {
      turn: turn.index,
      claimed,
      changed,
      unmatched: claimed.filter((claim) => !matchedClaims.includes(claim)),
      alignment: union === 0 ? null : Math.min(matchedClaims.length, matchedChanges.length) / union,
      claimsTestsPass: turn.assistantTexts.some((text) => testClaim.test(text)),
    };
  });
}
